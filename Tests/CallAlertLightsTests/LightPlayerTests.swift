import CallAlertLights
import CallAlertProtocol
import Testing

/// The light player's decisions, with time passed in: rhythm, cap, stop, indicator, keepalive, shutdown.
@Suite("Light player")
struct LightPlayerTests {
  /// The UK double ring: 400 lit, 200 dark, 400 lit, 2000 dark, until stopped.
  static let ukRing = Pattern(
    steps: [
      PatternStep(durationMs: 400, buzzerHz: 400, buzzerVolume: 255),
      PatternStep(durationMs: 200),
      PatternStep(durationMs: 400, buzzerHz: 450, buzzerVolume: 255),
      PatternStep(durationMs: 2_000),
    ], repeatCount: Pattern.repeatForever)
  static let red = LightColor(red: 255, green: 0, blue: 0)

  static func ring(token: UInt32 = 7, capMs: UInt32 = 30_000, sound: KuandoSound? = nil) -> LightPlayer.Ring {
    LightPlayer.Ring(token: token, rhythm: LightRhythm(ukRing), color: red, sound: sound, capMs: capMs)
  }

  /// Runs the player from `from` to `until`, at each deadline, collecting what it sent and when.
  static func run(
    _ player: inout LightPlayer, from: UInt64, until: UInt64
  ) -> (reports: [(at: UInt64, report: LightReport)], ended: [LightPlayer.Ended]) {
    var reports: [(UInt64, LightReport)] = []
    var ended: [LightPlayer.Ended] = []
    var now = from
    while let next = player.nextDeadlineMs, next <= until {
      #expect(next >= now, "a deadline in the past")
      now = next
      let output = player.advance(to: now)
      reports += output.reports.map { (now, $0) }
      ended += output.ended
    }
    return (reports, ended)
  }

  @Test func aKuandoRingKeepsItsKeepalivesInsideTheTimeoutAndEndsDarkAtTheCap() throws {
    var player = LightPlayer(kind: .kuando, deviceTimeoutMs: 3_000)
    let sound = KuandoSound(ringtone: .telephoneNordic, volume: 5)
    let start = player.play(Self.ring(sound: sound), now: 0)
    #expect(start.reports.count == 2)
    #expect(start.reports[0].payload[7] == 0x80 | 6 << 3 | 5, "the ring's first report sets its ringtone and volume")
    #expect(start.reports[1].payload[0] == 0x83, "and the keepalive arms a 3 s watchdog at once")
    let (reports, ended) = Self.run(&player, from: 0, until: 30_000)
    #expect(ended == [LightPlayer.Ended(token: 7, reason: .cap)])
    let keepalives = [0] + reports.filter { $0.report.payload[0] == 0x83 }.map(\.at)
    for (earlier, later) in zip(keepalives, keepalives.dropFirst()) { #expect(later - earlier <= 1_000) }
    #expect(keepalives.last! >= 29_000)
    let last = try #require(reports.last)
    #expect(last.at == 30_000)
    #expect(last.report.meaning == "off")
    #expect(last.report.payload[2...4] == [0, 0, 0])
    #expect(last.report.payload[7] == 0x80, "the off report silences the ringtone")
    #expect(player.nextDeadlineMs == nil, "nothing shows, so nothing is kept alive")
    // Between, the rhythm: lit at 0, dark at 400, lit at 600, dark at 1000, lit again at 3000.
    let rhythm = reports.filter { $0.report.payload[0] == 0x10 }.prefix(4).map { ($0.at, $0.report.payload[2]) }
    #expect(rhythm.map(\.0) == [400, 600, 1_000, 3_000])
    #expect(rhythm.map(\.1) == [0, 100, 0, 100])
    #expect(reports.filter { $0.report.payload[0] == 0x10 }.dropLast().allSatisfy { $0.report.payload[7] == 0 })
  }

  @Test func stoppingEndsTheRingWithAnOffReportAndStopsTheKeepalives() {
    var player = LightPlayer(kind: .kuando, deviceTimeoutMs: 3_000)
    _ = player.play(Self.ring(), now: 0)
    _ = Self.run(&player, from: 0, until: 5_000)
    let stop = player.stop(token: 7, now: 5_100)
    #expect(stop.ended == [LightPlayer.Ended(token: 7, reason: .stopped)])
    #expect(stop.reports.map(\.meaning) == ["off"])
    #expect(player.nextDeadlineMs == nil)
    #expect(player.stop(token: 7, now: 5_200).reports.isEmpty, "a second stop changes nothing")
  }

  @Test func aPatternThatPlaysOnceCompletes() {
    var player = LightPlayer(kind: .luxafor, deviceTimeoutMs: 3_000)
    var once = Self.ukRing
    once.repeatCount = 0
    _ = player.play(
      LightPlayer.Ring(token: 3, rhythm: LightRhythm(once), color: Self.red, sound: nil, capMs: 0), now: 0)
    let (reports, ended) = Self.run(&player, from: 0, until: 30_000)
    #expect(ended == [LightPlayer.Ended(token: 3, reason: .completed)])
    #expect(reports.last?.at == 3_000)
    #expect(reports.last?.report.meaning == "off")
    #expect(reports.allSatisfy { $0.report.channel == .output && $0.report.reportID == 0 })
  }

  @Test func aNewRingSupersedesTheOneThatPlays() {
    var player = LightPlayer(kind: .embrava, deviceTimeoutMs: 3_000)
    _ = player.play(Self.ring(token: 1), now: 0)
    let second = player.play(Self.ring(token: 2), now: 100)
    #expect(second.ended == [LightPlayer.Ended(token: 1, reason: .superseded)])
    #expect(player.playingToken == 2)
  }

  @Test func aBlink1IsTickledWhileLitAndReleasedWhenDark() {
    var player = LightPlayer(kind: .blink1, deviceTimeoutMs: 3_000)
    let start = player.play(Self.ring(), now: 0)
    #expect(start.reports.map { $0.payload[0] } == [UInt8(ascii: "n"), UInt8(ascii: "D")])
    #expect(start.reports.allSatisfy { $0.channel == .feature && $0.reportID == 1 })
    #expect(start.reports[1].payload[1...3] == [1, 0x01, 0x2C], "on, 300 tens of ms")
    let (reports, _) = Self.run(&player, from: 0, until: 3_000)
    let tickles = reports.filter { $0.report.payload[0] == UInt8(ascii: "D") }.map(\.at)
    #expect(tickles == [1_000, 2_000, 3_000])
    let stop = player.stop(token: 7, now: 3_500)
    #expect(stop.reports.map(\.meaning) == ["off", "server tickle off"])
  }

  @Test func theIndicatorBlinksBetweenRingsAndComesBackAfterOne() {
    var player = LightPlayer(kind: .luxafor, deviceTimeoutMs: 3_000)
    let orange = LightColor(red: 255, green: 96, blue: 0)
    let shown = player.setIndicator(LightPlayer.Indicator(color: orange, onMs: 150, offMs: 1_850), now: 0)
    #expect(shown.reports.map(\.meaning) == ["show #ff6000"])
    let (blinks, _) = Self.run(&player, from: 0, until: 3_900)
    #expect(blinks.map(\.at) == [150, 2_000, 2_150])
    _ = player.play(Self.ring(), now: 4_000)
    let stop = player.stop(token: 7, now: 4_100)
    #expect(stop.reports.map(\.meaning) == ["show #ff6000"])
    #expect(player.setIndicator(nil, now: 4_200).reports.map(\.meaning) == ["off"])
    #expect(player.setIndicator(nil, now: 4_300).reports.isEmpty, "the same indicator again changes nothing")
  }

  @Test(arguments: LightKind.allCases)
  func shuttingDownLeavesEveryKindDark(_ kind: LightKind) {
    var player = LightPlayer(kind: kind, deviceTimeoutMs: 3_000)
    _ = player.play(Self.ring(), now: 0)
    let output = player.shutDown()
    #expect(output.ended == [LightPlayer.Ended(token: 7, reason: .stopped)])
    #expect(output.reports.first?.meaning == "off")
    #expect(output.reports.count == (kind == .blink1 ? 2 : 1))
    #expect(player.nextDeadlineMs == nil)
  }

  @Test func aKuandoWatchdogIsNeverLongerThanTheLease() {
    #expect(LightEncoder.kuandoTimeoutSeconds(3_000) == 3)
    #expect(LightEncoder.kuandoTimeoutSeconds(3_999) == 3)
    #expect(LightEncoder.kuandoTimeoutSeconds(60_000) == 15)
    #expect(LightEncoder.kuandoTimeoutSeconds(500) == 1)
  }

  @Test func luxaforStrobeAndWaveFollowTheVendorsLayout() {
    let color = LightColor(red: 1, green: 2, blue: 3)
    #expect(
      LuxaforCommand.strobe(led: .all, color: color, speed: 20, repeatCount: 5).report.hex == "0003ff010203140005")
    #expect(LuxaforCommand.wave(type: 2, color: color, repeatCount: 3, speed: 40).report.hex == "000402010203000328")
  }

  @Test func colorsReadFromNamesAndHex() {
    #expect(LightColor(text: "red") == Self.red)
    #expect(LightColor(text: "#FF6000") == LightColor(red: 255, green: 96, blue: 0))
    #expect(LightColor(text: "#ff60") == nil)
    #expect(LightColor(text: "redd") == nil)
    #expect(LightColor(red: 1, green: 171, blue: 255).text == "#01abff")
  }
}
