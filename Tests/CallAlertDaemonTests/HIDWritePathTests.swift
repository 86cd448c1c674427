import CallAlertLights
import CallAlertTestSupport
import Foundation
import Testing

/// The real libhidapi write path, from `callalert board light` through hidapi's hid_write and
/// hid_send_feature_report to the kernel: a shim preloaded into the child (FakeHidraw/fake_hidraw.c) stands
/// in for a hidraw node and records the bytes that reach write(2) and the HIDIOCSFEATURE ioctl, report id
/// first.
@Suite("HID write path", .timeLimit(.minutes(2)))
struct HIDWritePathTests {
  static let fakePath = "/dev/hidraw-callalert-test"

  /// Compiles the shim once per run into a temporary folder (off the concurrency pool, at most 60 s); a
  /// failure (the tests then fail, saying why) without cc.
  static let shim = Task { () -> Result<String, ShimError> in
    let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("FakeHidraw/fake_hidraw.c").path
    let library = FileManager.default.temporaryDirectory
      .appendingPathComponent("callalert-fake-hidraw-\(getpid()).so").path
    let outcome: SpawnedProcess.Outcome
    do {
      outcome = try await SpawnedProcess.run("cc", ["-shared", "-fPIC", "-o", library, source, "-ldl"], within: 60)
    } catch {
      return .failure(ShimError(description: "cannot run cc: \(error)"))
    }
    guard outcome.succeeded else { return .failure(ShimError(description: "cc: \(outcome)")) }
    return .success(library)
  }

  struct ShimError: Error, CustomStringConvertible {
    var description: String
  }

  /// Runs `callalert board light` with `arguments` against the fake node; the lines the shim recorded.
  static func run(_ arguments: [String]) async throws -> [String] {
    let library = try await shim.value.get()
    let log = FileManager.default.temporaryDirectory.appendingPathComponent("callalert-hidraw-\(UUID()).log").path
    defer { try? FileManager.default.removeItem(atPath: log) }
    let child = try await DaemonProcess(
      ["board", "light", "--path", fakePath] + arguments,
      environment: ["LD_PRELOAD": library, "FAKE_HIDRAW_PATH": fakePath, "FAKE_HIDRAW_LOG": log])
    let exit = await child.exit()
    let status = try #require(exit, "callalert board light did not exit")
    let errors = await child.allErrors()
    #expect(status.exitCode == 0, "\(errors)")
    let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").map(String.init)
  }

  @Test func aKuandoGetsItsProgramWithReportIDZeroThenAKeepalive() async throws {
    let lines = try await Self.run(
      ["--kind", "kuando", "--color", "#00ff00", "--ringtone", "telephoneNordic", "--volume", "5", "--seconds", "3"])
    let encoder = LightEncoder(kind: .kuando)
    let show = encoder.show(
      LightColor(red: 0, green: 255, blue: 0), sound: KuandoSound(ringtone: .telephoneNordic, volume: 5))
    let keepAlive = try #require(encoder.keepAlive(timeoutMs: 3_000))
    #expect(lines == ["write " + show.hex, "write " + keepAlive.hex])
    #expect(lines.first?.count == "write ".count + 130, "65 bytes: report id 0 and the 64-byte program")
    #expect(lines.first?.hasPrefix("write 0010000064") == true, "report id 0, a jump, red 0, green 100")
  }

  @Test func aBlink1GetsFeatureReportsWithReportIDOne() async throws {
    let lines = try await Self.run(["--kind", "blink1", "--color", "#102030"])
    #expect(lines == ["feature 016e102030000000", "feature 014401012c000000"])
  }

  @Test func offReachesALuxaforAndAnEmbrava() async throws {
    #expect(try await Self.run(["--kind", "luxafor", "--off"]) == ["write 0001ff000000000000"])
    #expect(try await Self.run(["--kind", "embrava", "--off"]) == ["write 00000000090000ff22"])
  }
}
