import Foundation

/// The peer the codec is compared with: Python's `cobs` and `crc32c` packages (C extensions; `crc32c` uses the
/// CPU's instruction) doing the same framing on the same kind of frames, in the same run. Skipped, with a message,
/// when python3 or the packages are missing (`pip install cobs crc32c`).
enum PeerCodecBench {
  /// Frames per second for 1 KiB payloads, or why they were not measured.
  enum Outcome: Sendable {
    case measured(encode: Double, decode: Double)
    case skipped(String)

    var json: JSONValue {
      switch self {
      case .measured(let encode, let decode):
        .object([("encode_frames_per_s", .number(encode)), ("decode_frames_per_s", .number(decode))])
      case .skipped(let why): .object([("skipped", .string(why))])
      }
    }
  }

  /// The script: 64 frames with random payloads (one byte in five zero), header + payload + CRC-32C, COBS and
  /// 0x00; encode from the frame's fields, decode back with the CRC checked; median of `runs` runs of ~0.2 s.
  private static let script = #"""
    import random, struct, sys, time
    try:
        import cobs.cobs as cobs
        import crc32c
    except ImportError as error:
        print("skip", error)
        sys.exit(0)
    size, runs, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    rng = random.Random(size)
    frames = []
    for i in range(64):
        payload = bytes(0 if rng.random() < 0.2 else rng.randrange(256) for _ in range(size))
        frames.append((i, payload))
    def encode(i, payload):
        raw = struct.pack("<BBHBIH", 1, 0, i, 0x40, 0x12345678, len(payload)) + payload
        return cobs.encode(raw + struct.pack("<I", crc32c.crc32c(raw))) + b"\0"
    wires = [encode(i, p) for i, p in frames]
    def decode(wire):
        raw = cobs.decode(wire[:-1])
        if crc32c.crc32c(raw[:-4]) != struct.unpack("<I", raw[-4:])[0]:
            raise ValueError("crc")
        return raw[11:-4]
    assert all(decode(w) == p for w, (i, p) in zip(wires, frames))
    def rate(batch):
        count = 1
        while True:
            start = time.perf_counter()
            for _ in range(count): batch()
            elapsed = time.perf_counter() - start
            if elapsed >= seconds / 4: break
            count *= 4
        count = max(1, int(count * seconds / elapsed))
        rates = []
        for _ in range(runs):
            start = time.perf_counter()
            for _ in range(count): batch()
            rates.append(count * 64 / (time.perf_counter() - start))
        return sorted(rates)[len(rates) // 2]
    print("encode", rate(lambda: [encode(i, p) for i, p in frames]))
    print("decode", rate(lambda: [decode(w) for w in wires]))
    """#

  /// Runs the script for `payloadBytes`-byte payloads.
  static func run(payloadBytes: Int, runs: Int, secondsPerRun: Double) async -> Outcome {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, "\(payloadBytes)", "\(runs)", "\(secondsPerRun)"]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    let exit: ChildExit
    do { exit = try ChildExit(starting: process) } catch { return .skipped("python3 could not start: \(error)") }
    let data = await withCheckedContinuation { (continuation: CheckedContinuation<Data, Never>) in
      Thread.detachNewThread { continuation.resume(returning: output.fileHandleForReading.readDataToEndOfFile()) }
    }
    guard await exit.waitOrKill(after: .seconds(120)) == 0 else { return .skipped("python3 not found or failed") }
    var encode: Double?
    var decode: Double?
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      if line.hasPrefix("skip") {
        return .skipped("python3 lacks the packages (pip install cobs crc32c): \(line.dropFirst(5))")
      }
      let fields = line.split(separator: " ")
      guard fields.count == 2, let value = Double(fields[1]) else { continue }
      if fields[0] == "encode" { encode = value }
      if fields[0] == "decode" { decode = value }
    }
    guard let encode, let decode else { return .skipped("the script printed no figures") }
    return .measured(encode: encode, decode: decode)
  }
}
