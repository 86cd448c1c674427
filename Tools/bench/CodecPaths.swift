import CallAlertProtocol
import Foundation

/// Which code paths the codec took on this CPU and why, and its instructions per frame under callgrind (the same
/// on any machine of the architecture, so an encode rate that differs between machines is a matter of how the
/// core runs those instructions, not of a different path).
enum CodecPaths {
  /// The CRC-32C implementation runs of bytes use, and what decided it.
  struct CRCPath: Sendable {
    let implementation: String
    let reason: String

    var json: JSONValue { .object([("implementation", .string(implementation)), ("reason", .string(reason))]) }
  }

  /// The CRC path on this machine: `CRC32C.Implementation.fastest` (the protocol module's own run-time check),
  /// with the CPU feature behind it as the kernel lists it.
  static func crc() -> CRCPath {
    let fastest = CRC32C.Implementation.fastest
    let name = CodecBench.name(fastest)
    let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let flags = Set(
      cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") || $0.hasPrefix("Features") }
        .map { $0.split(separator: ":", maxSplits: 1).last?.split(separator: " ").map(String.init) ?? [] } ?? [])
    #if arch(x86_64)
      let check = "cpuid leaf 1, ECX bit 20 (SSE4.2)"
      let has = flags.contains("sse4_2")
      let feature = "sse4_2"
    #elseif arch(arm64)
      let check = "getauxval(AT_HWCAP) & HWCAP_CRC32"
      let has = flags.contains("crc32")
      let feature = "crc32"
    #else
      let check = "no run-time check on this architecture"
      let has = false
      let feature = "none"
    #endif
    let reason =
      fastest == .instruction
      ? "\(check) found the instruction (/proc/cpuinfo lists \(feature): \(has))"
      : "\(check) found no CRC-32C instruction (/proc/cpuinfo lists \(feature): \(has)); slice-by-8 tables"
    return CRCPath(implementation: name, reason: reason)
  }

  /// How the COBS encoder and decoder would take each of `raws` (frames before COBS): the forward pass word by
  /// word unless a run of 254 bytes without a zero (a block that needs its own code byte) sends it to the block
  /// writer; and the decoder's blocks copied 16 bytes at once (at most 16 data bytes) or by memmove.
  struct COBSPaths: Sendable {
    var byWords = 0
    var fallback = 0
    var shortBlocks = 0
    var longBlocks = 0

    init(_ raws: [[UInt8]]) {
      for raw in raws {
        var run = 0
        var longest = 0
        for byte in raw {
          run = byte == 0 ? 0 : run + 1
          longest = max(longest, run)
        }
        if longest < 254 { byWords += 1 } else { fallback += 1 }
        var block = 0
        for byte in raw {
          if byte == 0 || block == 254 {
            if block <= 16 { shortBlocks += 1 } else { longBlocks += 1 }
            block = byte == 0 ? 0 : 1
          } else {
            block += 1
          }
        }
        if block <= 16 { shortBlocks += 1 } else { longBlocks += 1 }
      }
    }

    var text: String {
      "encode: \(byWords) word by word (forward pass), \(fallback) by the block writer (a run of 254 without a zero); "
        + "decode: \(shortBlocks) blocks copied 16 B at once, \(longBlocks) by memmove"
    }

    var json: JSONValue {
      .object([
        ("encode_word_pass_frames", .int(byWords)), ("encode_block_writer_frames", .int(fallback)),
        ("decode_short_blocks", .int(shortBlocks)), ("decode_memmove_blocks", .int(longBlocks)),
      ])
    }
  }

  /// The operations counted under callgrind.
  static let countedOperations = ["encode", "decode", "encode-no-zero", "decode-no-zero"]

  /// Runs `operation` on 1 KiB frames `count` times (the hidden `--codec-count` mode, run under callgrind by
  /// ``instructionsPerFrame(_:)``): the sample frames the codec section uses, or frames without a zero.
  static func runCounted(_ operation: String, count: Int) {
    let frames = CodecBench.sampleFrames(payloadBytes: Frame.maxPayload, withoutZeros: operation.hasSuffix("no-zero"))
    let wires = frames.map { $0.encoded() }
    var decoder = FrameDecoder(maxPayload: Frame.maxPayload)
    var total = 0
    if operation.hasPrefix("encode") {
      for index in 0..<count { total &+= frames[index % frames.count].encoded().count }
    } else {
      for index in 0..<count {
        decoder.feed(wires[index % wires.count]) { output in
          if case .frame(let frame) = output { total &+= frame.payload.count }
        }
      }
    }
    sink(total)
  }

  /// Instructions per 1 KiB frame of each operation: this executable under callgrind, `--codec-count OP:N` for N = 0
  /// and N = 2 000, the difference over 2 000 (start-up cancels out); nil (with why) without valgrind.
  static func instructionsPerFrame() -> Result<[(String, Double)], BenchError> {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "callalert-codec-callgrind-\(UUID().uuidString.prefix(8))"
    ).path
    guard (try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)) != nil
    else { return .failure(BenchError("cannot make \(directory)")) }
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let setup: Callgrind.Setup
    switch Callgrind.setUp(directory: directory) {
    case .success(let found): setup = found
    case .failure(let why): return .failure(why)
    }
    let bench = setup.withoutDebugInfo(FloorBench.sibling("callalert-bench"))
    let frames = 2_000
    var result: [(String, Double)] = []
    for operation in countedOperations {
      var totals: [Int] = []
      for count in [0, frames] {
        let prefix = "\(operation)-\(count)"
        let command = setup.wrapper(prefix: prefix) + [bench, "--codec-count", "\(operation):\(count)"]
        guard runToEnd(command) == 0,
          let file = Callgrind.dumpFiles(directory: directory, prefix: prefix + ".").first,
          let total = Callgrind.totals(ofDumpAt: file)
        else { return .failure(BenchError("callgrind did not count \(operation)")) }
        totals.append(total)
      }
      result.append((operation, Double(totals[1] - totals[0]) / Double(frames)))
    }
    return .success(result)
  }
}
