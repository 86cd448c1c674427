// The entry every fuzz target shares. Built with -DFUZZING and -sanitize=fuzzer (`make fuzz`), it hands
// control to libFuzzer; a plain build replays the files named on the command line (a crash artifact, say)
// through the same entry point, so a finding can be debugged without the sanitizer.
import Foundation

#if FUZZING
  /// libFuzzer's entry for programs that keep their own `main`.
  @_silgen_name("LLVMFuzzerRunDriver")
  func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
  ) -> CInt
#endif

/// Runs one fuzz target: under libFuzzer, or replaying files.
public enum FuzzDriver {
  /// Runs `body` on libFuzzer's inputs (fuzzing builds) or on each file named on the command line.
  public static func run(_ body: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) throws -> Never {
    #if FUZZING
      var argc = CommandLine.argc
      var argv = CommandLine.unsafeArgv
      exit(LLVMFuzzerRunDriver(&argc, &argv, body))
    #else
      for path in CommandLine.arguments.dropFirst() {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        _ = bytes.withUnsafeBufferPointer { body($0.baseAddress, $0.count) }
        print("\(path): \(bytes.count) bytes, no failure")
      }
      exit(0)
    #endif
  }
}
