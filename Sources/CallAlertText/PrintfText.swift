#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Numbers laid out by C's `printf` formats (`%8.3f`, `%02ld`, `%04x`): what `String(format:)` gave for
/// numbers, without full Foundation. Only numeric conversions: Foundation's `%@` has no C counterpart.
package enum PrintfText {
  /// `format` with `arguments` filled in by `vsnprintf`, in the C locale's notation (a `.` decimal point).
  package static func format(_ format: String, _ arguments: any CVarArg...) -> String {
    withVaList(arguments) { list in
      var buffer = [CChar](repeating: 0, count: 64)
      // A second pass when the first buffer was too small: vsnprintf says how much it needed.
      let needed = Int(vsnprintf(&buffer, buffer.count, format, list))
      guard needed >= buffer.count else {
        return String(decoding: buffer.prefix(max(0, needed)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
      }
      return withVaList(arguments) { again in
        buffer = [CChar](repeating: 0, count: needed + 1)
        let written = Int(vsnprintf(&buffer, buffer.count, format, again))
        return String(decoding: buffer.prefix(max(0, written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
      }
    }
  }
}
