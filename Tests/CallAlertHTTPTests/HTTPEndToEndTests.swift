import AsyncHTTPClient
import CallAlertDaemon
import CallAlertHTTPDaemon
import CallAlertTestSupport
import CallAlertValues
import Foundation
import Logging
import NIOHTTP1
import ServiceLifecycle
import Testing

/// The HTTP API over real HTTP on loopback, in the daemon, with a virtual board: what a provider's webhook
/// or a script with curl does.
@Suite("HTTP end to end", .serialized, .timeLimit(.minutes(1)))
struct HTTPEndToEndTests {
  @Test func aSipgateWebhookRingsTheBoardAndItsHangupSilencesIt() async throws {
    let rig = try await HTTPDaemonRig.start()
    let form = [("content-type", "application/x-www-form-urlencoded")]
    let newCall = try await rig.send(
      .POST, "/v1/webhooks/sipgate",
      body: "event=newCall&from=492111234567&to=4915791234567&direction=in&callId=sg1&user%5B%5D=Alice", headers: form)
    #expect(newCall.status == 200 && newCall.contentType == "application/xml")
    #expect(newCall.body.contains(#"onHangup="http://127.0.0.1:\#(rig.port)/v1/webhooks/sipgate""#))
    #expect(await rig.boardPlays(true))

    // The caller gives up: the board goes quiet and the call is missed.
    let hangup = try await rig.send(
      .POST, "/v1/webhooks/sipgate", body: "event=hangup&cause=cancel&callId=sg1&direction=in", headers: form)
    #expect(hangup.status == 200)
    #expect(await rig.boardPlays(false))
    let missed = try await rig.send(.GET, "/v1/history?missed=true&limit=5")
    #expect(missed.status == 200 && missed.body.contains(#""id":"sg1""#))

    // The JSON API: a call, its hangup.
    let call = try await rig.send(.POST, "/v1/calls", body: #"{"id":"c1","caller":"+4930123","name":"Alice"}"#)
    #expect(call.status == 200 && call.body.contains(#""outcome":"ringing""#))
    #expect(await rig.boardPlays(true))
    let stop = try await rig.send(.POST, "/v1/calls/c1/hangup")
    #expect(stop.status == 200 && stop.body.contains(#""outcome":"stopped""#))
    #expect(await rig.boardPlays(false))
    try await rig.stop()
  }

  @Test func badRequestsGetProblemDocumentsNamingTheFieldAndThePlace() async throws {
    let rig = try await HTTPDaemonRig.start()
    let level = try await rig.send(.POST, "/v1/calls", body: "{\n  \"id\": \"c2\",\n  \"level\": \"urgent\"\n}")
    #expect(level.status == 400 && level.contentType == "application/problem+json")
    #expect(level.body.contains(#""field":"level""#) && level.body.contains(#""location":"body:3:12""#))
    let syntax = try await rig.send(.POST, "/v1/calls", body: #"{"id":"#)
    #expect(syntax.status == 400 && syntax.body.contains(#""location":"body:1:7""#))
    let limit = try await rig.send(.GET, "/v1/history?limit=0")
    #expect(
      limit.status == 400 && limit.body.contains(#""field":"limit""#) && limit.body.contains(#""location":"query""#))
    let large = try await rig.send(
      .POST, "/v1/push", body: String(repeating: " ", count: 70 * 1_024),
      headers: [("Content-Type", "application/json")])
    #expect(large.status == 413 && large.contentType == "application/problem+json")
    let unknown = try await rig.send(.GET, "/v2/calls")
    #expect(unknown.status == 404 && unknown.contentType == "application/problem+json")
    #expect(unknown.body.contains("did you mean /v1/calls?"), "\(unknown.body)")
    let empty = try await rig.send(.POST, "/v1/calls")
    #expect(empty.status == 400 && empty.body.contains("the body is empty; send a JSON object, e.g."), "\(empty.body)")
    let typo = try await rig.send(.POST, "/v1/call/c2/hangup")
    #expect(typo.status == 404 && typo.body.contains("did you mean /v1/calls/c2/hangup?"), "\(typo.body)")
    let method = try await rig.send(.DELETE, "/v1/calls")
    #expect(method.status == 405 && method.headers.first(name: "allow") == "POST")
    let id = try await rig.send(.POST, "/v1/calls/%07/hangup")
    #expect(id.status == 400 && id.body.contains(#""field":"id""#))
    let dnd = try await rig.send(.PUT, "/v1/dnd", body: #"{"mode":"scheduld"}"#)
    #expect(dnd.status == 400 && dnd.body.contains("did you mean 'scheduled'"), "\(dnd.body)")
    // Nothing was lost: the daemon still answers, and a good request works.
    let on = try await rig.send(.PUT, "/v1/dnd", body: #"{"mode":"on","silent":true}"#)
    #expect(
      on.status == 200 && on.body.contains(#""active":true"#) && on.body.contains(#""silent":true"#), "\(on.body)")
    try await rig.stop()
  }

  /// `PUT /v1/dnd` with `until`: the status has the end; an end already past, one over 30 days ahead, a time
  /// that is none and an `until` without `mode` are refused, naming the field.
  @Test func doNotDisturbUntilATime() async throws {
    let rig = try await HTTPDaemonRig.start()
    let end = Timestamp.iso8601(Date().addingTimeInterval(3_600))
    let on = try await rig.send(.PUT, "/v1/dnd", body: #"{"mode":"on","until":"\#(end)"}"#)
    #expect(on.status == 200 && on.body.contains(#""until":"\#(end)""#), "\(on.body)")
    let past = try await rig.send(.PUT, "/v1/dnd", body: #"{"mode":"on","until":"2020-01-01T00:00:00Z"}"#)
    #expect(
      past.status == 422 && past.body.contains(#""field":"until""#) && past.body.contains("is not after now"),
      "\(past.body)")
    let far = Timestamp.iso8601(Date().addingTimeInterval(40 * 86_400))
    let tooFar = try await rig.send(.PUT, "/v1/dnd", body: #"{"mode":"on","until":"\#(far)"}"#)
    #expect(tooFar.status == 422 && tooFar.body.contains("more than 30 days ahead"), "\(tooFar.body)")
    let word = try await rig.send(.PUT, "/v1/dnd", body: #"{"mode":"on","until":"tonight"}"#)
    #expect(word.status == 400 && word.body.contains(#""location":"body:1:22""#), "\(word.body)")
    let alone = try await rig.send(.PUT, "/v1/dnd", body: #"{"until":"\#(end)"}"#)
    #expect(alone.status == 400 && alone.body.contains("give \\\"mode\\\" too"), "\(alone.body)")
    // The refused ones changed nothing.
    #expect(try await rig.send(.GET, "/v1/dnd").body.contains(#""until":"\#(end)""#))
    try await rig.stop()
  }

  @Test func theTokenIsAskedOnEveryRouteButHealthz() async throws {
    let rig = try await HTTPDaemonRig.start(extraHTTP: "token_file: token") { directory in
      try HTTPDaemonRig.writeSecret("s3cret\n", at: directory.appendingPathComponent("token").path, mode: 0o600)
    }
    let none = try await rig.send(.GET, "/v1/status")
    #expect(none.status == 401 && none.contentType == "application/problem+json")
    #expect(none.headers.first(name: "www-authenticate")?.hasPrefix("Bearer") == true)
    let wrong = try await rig.send(.GET, "/v1/status", headers: [("Authorization", "Bearer s3cres")])
    #expect(wrong.status == 401)
    let right = try await rig.send(.GET, "/v1/status", headers: [("Authorization", "Bearer s3cret")])
    #expect(right.status == 200 && right.body.contains(#""status":"#))
    #expect(try await rig.send(.GET, "/healthz").status == 200)
    #expect(try await rig.send(.GET, "/metrics").status == 401)
    // A provider cannot send a bearer header: webhooks take the token in the URL too, not the API.
    let vonage = #"{"status":"ringing","direction":"inbound","uuid":"v1","from":"441234567890"}"#
    #expect(try await rig.send(.POST, "/v1/webhooks/vonage", body: vonage).status == 401)
    #expect(try await rig.send(.POST, "/v1/webhooks/vonage?token=s3cret", body: vonage).status == 200)
    #expect(try await rig.send(.GET, "/v1/status?token=s3cret").status == 401)
    try await rig.stop()
  }

  @Test func aTokenFileOthersMayReadIsRefusedAtStart() async throws {
    let board = try PseudoTerminalBoard()
    let directory = try HTTPDaemonRig.makeDirectory()
    try HTTPDaemonRig.writeSecret("s3cret", at: directory.appendingPathComponent("token").path, mode: 0o644)
    let config = try HTTPDaemonRig.writeConfig(in: directory, board: board.slavePath, extraHTTP: "token_file: token")
    var options = DaemonOptions(configPath: config, readStandardInput: false)
    options.addOns = [.http()]
    let error = await #expect(throws: DaemonStartError.self) {
      _ = try await Daemon.makeServiceGroup(options: options, logger: Logger(label: "http-test"), eventSink: { _ in })
    }
    #expect(error?.description.contains("http.token_file") == true && error?.description.contains("chmod 600") == true)
    // The place in the config, as the config's own errors name it (it had none).
    #expect(error?.description.hasPrefix("\(config):") == true, "\(String(describing: error))")
    // An empty token file says what belongs in it (it asked for "the AMI secret").
    try HTTPDaemonRig.writeSecret("", at: directory.appendingPathComponent("token").path, mode: 0o600)
    let empty = await #expect(throws: DaemonStartError.self) {
      _ = try await Daemon.makeServiceGroup(options: options, logger: Logger(label: "http-test"), eventSink: { _ in })
    }
    #expect(
      empty?.description.contains("put the bearer token on its first line") == true, "\(String(describing: empty))")
    // Without the add-on, an http: section is refused rather than silently not served.
    let bare = await #expect(throws: DaemonStartError.self) {
      _ = try await Daemon.makeServiceGroup(
        options: DaemonOptions(configPath: config, readStandardInput: false), logger: Logger(label: "http-test"),
        eventSink: { _ in })
    }
    #expect(bare?.description.contains("without the HTTP API") == true)
    await board.stop()
  }

  /// A stranger's requests over real HTTP, without a token on loopback: a page that rebinds its name to
  /// 127.0.0.1 (its name as `Host`), a page on another site (its `Origin`) and a cross-site form post
  /// (`text/plain`) neither ring the board nor read the history.
  @Test func strangersFromPagesNeitherRingNorRead() async throws {
    let rig = try await HTTPDaemonRig.start()
    let call = #"{"id":"x1","caller":"+14155550101"}"#
    let rebound = try await rig.send(.GET, "/v1/history", headers: [("Host", "evil.example:\(rig.port)")])
    #expect(rebound.status == 403 && rebound.contentType == "application/problem+json", "\(rebound.body)")
    #expect(!rebound.body.contains("calls"))
    let foreign = try await rig.send(.POST, "/v1/calls", body: call, headers: [("Origin", "http://evil.example")])
    #expect(foreign.status == 403, "\(foreign.body)")
    let form = try await rig.send(.POST, "/v1/calls", body: call, headers: [("Content-Type", "text/plain")])
    #expect(form.status == 415, "\(form.body)")
    let history = try await rig.send(.GET, "/v1/history")
    #expect(history.status == 200 && !history.body.contains("x1"), "nothing rang: \(history.body)")
    // The owner's own requests still work.
    let own = try await rig.send(.POST, "/v1/calls", body: #"{"id":"x2"}"#, headers: [("Origin", rig.base)])
    #expect(own.status == 200, "\(own.body)")
    try await rig.stop()
  }

  /// `--http` on a port another program holds: the error names the address and what to do, in words, and
  /// the daemon stops with it (it said "bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)").
  @Test func aPortInUseIsNamedWithWhatToDo() async throws {
    let first = try await HTTPDaemonRig.start()
    let board = try PseudoTerminalBoard()
    let directory = try HTTPDaemonRig.makeDirectory()
    let config = try HTTPDaemonRig.writeConfig(in: directory, board: board.slavePath, extraHTTP: "")
    var options = DaemonOptions(configPath: config, readStandardInput: false)
    options.http = HTTPListenAddress(host: "127.0.0.1", port: first.port)
    options.addOns = [.http()]
    let group = try await Daemon.makeServiceGroup(
      options: options, logger: Logger(label: "http-test"), eventSink: { _ in })
    let outcome = await finishing(within: 20) { () -> String in
      do {
        try await group.run()
        return "ran to its end"
      } catch {
        return "\(error)"
      }
    }
    #expect(outcome?.hasPrefix("http: cannot listen on 127.0.0.1:\(first.port): another program listens there") == true)
    #expect(outcome?.contains("--http ADDR:PORT") == true, "\(String(describing: outcome))")
    #expect(outcome?.contains("descriptor:ptr") == false)
    await board.stop()
    try await first.stop()
  }

  @Test func eventsAreReadLiveAndResumedAfterAReconnect() async throws {
    let rig = try await HTTPDaemonRig.start()
    let first = EventReader(rig.base + "/v1/events")
    #expect(await first.next()?.event == nil)  // the opening `retry:`: subscribed
    _ = try await rig.send(.POST, "/v1/calls", body: #"{"id":"e1"}"#)
    #expect(await rig.boardPlays(true))
    var ringing = try #require(await first.next())
    // A call that came before the board connected is announced again when it rings there.
    while ringing.event != "ringing" || ringing.data?.contains(#""boards":[]"#) == true {
      ringing = try #require(await first.next())
    }
    #expect(ringing.event == "ringing" && ringing.data?.contains(#""id":"e1""#) == true)
    let seen = try #require(ringing.id)
    first.close()

    // While nobody listens the call stops; a client reconnecting with Last-Event-ID gets what it missed.
    _ = try await rig.send(.POST, "/v1/calls/e1/hangup")
    #expect(await rig.boardPlays(false))
    let second = EventReader(rig.base + "/v1/events", lastEventID: seen)
    #expect(await second.next()?.event == nil)
    var replayed: [EventReader.Block] = []
    while let block = await second.next() {
      replayed.append(block)
      if block.event == "stopped" { break }
    }
    #expect(replayed.first?.id == seen + 1)
    #expect(!replayed.contains { $0.event == "ringing" })
    #expect(replayed.last?.event == "stopped" && replayed.last?.data?.contains(#""id":"e1""#) == true)
    second.close()
    try await rig.stop()
  }

  @Test func metricsAreValidPrometheusText() async throws {
    let rig = try await HTTPDaemonRig.start()
    // The first call may come before the board connected (it waits, then rings); the second rings at once.
    for id in ["m1", "m2"] {
      _ = try await rig.send(.POST, "/v1/calls", body: #"{"id":"\#(id)"}"#)
      #expect(await rig.boardPlays(true))
      _ = try await rig.send(.POST, "/v1/calls/\(id)/hangup")
      #expect(await rig.boardPlays(false))
    }
    let reply = try await rig.send(.GET, "/metrics")
    #expect(reply.status == 200 && reply.contentType.hasPrefix("text/plain; version=0.0.4"))
    var values: [String: Double] = [:]
    let sample =
      /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="[^"]*"(,[a-zA-Z_][a-zA-Z0-9_]*="[^"]*")*\})? (\S+)$/
    for line in reply.body.split(separator: "\n") {
      if line.hasPrefix("# TYPE ") || line.hasPrefix("# HELP ") { continue }
      let match = try #require(try sample.wholeMatch(in: String(line)), "not Prometheus text: \(line)")
      let value = try #require(Double(String(match.output.4)) ?? (match.output.4 == "+Inf" ? .infinity : nil))
      values[String(match.output.1) + String(match.output.2 ?? "")] = value
    }
    #expect(values["callalert_calls_rung_total"] == 2)
    #expect(values["callalert_boards_connected"] == 1)
    #expect(values["callalert_ring_duration_seconds_count"] == 2)
    #expect((values["callalert_http_call_to_ringing_seconds_count"] ?? 0) >= 1)
    // From the call's arrival to the board's acknowledged PLAY: the second call at least (the first may have
    // waited for the board to connect, and a replay is not counted).
    #expect((values[#"callalert_call_to_play_seconds_count{board="desk"}"#] ?? 0) >= 1)
    #expect(values[#"callalert_http_requests_total{route="/v1/calls",status="200"}"#] == 2)
    // The link counters are there for the board. On a clean pseudo-terminal nothing is corrupted, so no resync
    // and no decode error; a retransmission is legitimate when a busy machine delays an acknowledgement past
    // its deadline (flake-hunt LOAD=run saw one), so only its presence is checked.
    #expect(values[#"callalert_link_retransmissions_total{board="desk"}"#] != nil)
    #expect(values[#"callalert_link_resyncs_total{board="desk"}"#] == 0)
    #expect(values[#"callalert_link_decode_errors_total{board="desk"}"#] == 0)
    try await rig.stop()
  }
}
