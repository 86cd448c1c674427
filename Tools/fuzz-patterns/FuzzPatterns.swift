// libFuzzer target over the pattern file parser: whatever text a user feeds `callalert patterns check` or
// `compile`, parsing must neither crash nor hang, a file `check` passes must build, and a file that builds must
// compile to a table the board's own decoder accepts and that decompiles to a file giving the same table again.
// Built by `make fuzz` with -sanitize=fuzzer,address; run as a plain executable it replays files.
import CallAlertFuzzDriver
import CallAlertPatterns
import CallAlertProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// One input: the bytes as a pattern file (lossy UTF-8, as a file read from disk would be decoded).
func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  // Most inputs do not parse: they cost one parse, in `check`. An input `check` finds no error in must build
  // (the two share the parser and the validator; a difference would be a check that lets a bad file through).
  guard !PatternFile.check(text: text, file: "fuzz.yaml").containsErrors else { return 0 }
  guard let built = try? PatternFile.build(text: text, file: "fuzz.yaml") else {
    preconditionFailure("check found no error, build failed")
  }
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

/// The executable's entry: libFuzzer under `make fuzz`, replaying files otherwise (see FuzzDriver).
@main
struct FuzzPatternsMain {
  static func main() throws {
    try FuzzDriver.run { data, size in fuzzOneInput(data ?? UnsafePointer(bitPattern: 1)!, size) }
  }
}
