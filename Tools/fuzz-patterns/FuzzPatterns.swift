// libFuzzer target over the pattern file parser: whatever text a user feeds `callalert patterns check` or
// `compile`, parsing must neither crash nor hang, and a file that builds must compile to a table the board's
// own decoder accepts and that decompiles to a file giving the same table again.
// Built by `make fuzz` with -sanitize=fuzzer,address; run as a plain executable it replays files.
import CallAlertPatterns
import CallAlertProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// One input: the bytes as a pattern file (lossy UTF-8, as a file read from disk would be decoded).
func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  _ = PatternFile.check(text: text, file: "fuzz.yaml")
  guard let built = try? PatternFile.build(text: text, file: "fuzz.yaml") else { return 0 }
  // A table that builds must be one a board accepts, and survive a decompile and a rebuild unchanged.
  guard let decoded = try? PatternTable.decode(built.bytes) else {
    preconditionFailure("a table that built was refused by PatternTable.decode")
  }
  precondition(decoded == built.table, "the decoded table differs from the compiled one")
  let yaml = PatternFile.decompile(built.table)
  guard let again = try? PatternFile.build(text: yaml, file: "decompiled.yaml") else {
    preconditionFailure("the decompiled file does not build:\n\(yaml)")
  }
  precondition(again.bytes == built.bytes, "decompiling and rebuilding changed the table")
  return 0
}

#if FUZZING
  /// libFuzzer's entry for programs that keep their own `main`.
  @_silgen_name("LLVMFuzzerRunDriver")
  func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
  ) -> CInt
#else
  import Foundation
#endif

/// The executable's entry. Built with -DFUZZING and -sanitize=fuzzer (`make fuzz`), it hands control to
/// libFuzzer; a plain build replays the files named on the command line (a crash artifact, say) through
/// the same entry point, so a finding can be debugged without the sanitizer.
@main
struct FuzzPatternsMain {
  static func main() throws {
    #if FUZZING
      var argc = CommandLine.argc
      var argv = CommandLine.unsafeArgv
      let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        fuzzOneInput(data ?? UnsafePointer(bitPattern: 1)!, size)
      }
      exit(status)
    #else
      for path in CommandLine.arguments.dropFirst() {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        _ = bytes.withUnsafeBufferPointer { fuzzOneInput($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, $0.count) }
        print("\(path): \(bytes.count) bytes, no failure")
      }
    #endif
  }
}
