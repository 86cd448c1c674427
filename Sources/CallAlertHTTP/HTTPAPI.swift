import CallAlertControl
import CallAlertEngine
import CallAlertText
import CallAlertValues
internal import HTTPTypes
internal import Hummingbird
import Logging
internal import NIOCore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The HTTP API's routes on a Hummingbird router: every request becomes a typed ``ControlRequest`` for the
/// daemon's handler, every answer a typed ``ControlResponse`` written as JSON, every error an RFC 9457
/// ``ProblemDocument``. See docs/openapi.yaml.
struct HTTPAPI: Sendable {
  let configuration: HTTPAPIConfiguration
  let backend: HTTPBackend
  let feed: EventFeed
  let metrics: CallMetrics
  let logger: Logger
  /// The page's sessions and form tokens, under a key drawn at each start.
  var sessions = PageSessions()

  typealias Context = BasicRequestContext

  /// The router with every route and the middleware that checks the token and turns errors into problems.
  func router() -> Router<Context> {
    let router = Router(context: Context.self)
    addPage(to: router)  // before the API's middleware: the page is judged by its own
    router.add(
      middleware: APIMiddleware(
        token: configuration.token, vonageSecret: vonageSecret, bodyLimit: configuration.limits.bodyBytes,
        origins: RequestOriginPolicy(
          allowedHosts: configuration.allowedHosts, tokenConfigured: configuration.token != nil),
        metrics: metrics, logger: logger))
    router.get("/healthz") { _, _ in Self.json(#"{"ok":true}"#) }
    router.get("/metrics") { _, _ in await metricsText() }
    router.post("/v1/calls") { request, _ in
      let body = try await readBody(request)
      let call = try parse(body, type: "call")
      return await answer(call, source: "http")
    }
    router.post("/v1/calls/{id}/hangup") { _, context in
      let id = try Self.callID(context)
      return await answer(.input(.hangup(callID: id)), source: "http")
    }
    router.post("/v1/calls/{id}/answered") { _, context in
      let id = try Self.callID(context)
      return await answer(.input(.answered(callID: id)), source: "http")
    }
    router.post("/v1/ack") { request, _ in
      let body = try await readBody(request)
      let isBlank = body.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
      let ack = isBlank ? ControlRequest.input(.acknowledge(board: nil)) : try parse(body, type: "ack")
      return await answer(ack, source: "http")
    }
    router.get("/v1/status") { _, _ in await answer(.status, source: "http") }
    router.get("/v1/dnd") { _, _ in await doNotDisturb() }
    router.put("/v1/dnd") { request, _ in
      let changes = try DoNotDisturbBody.parse(try await readBody(request))
      // Well formed but not to be done now (an end already past, or too far ahead): 422, before any change.
      let now = Date()
      if let problem = changes.lazy.compactMap({ $0.problem(at: now, place: "body") }).first {
        throw ProblemDocument.unprocessable(problem)
      }
      for change in changes {
        let response = await backend.handle(change, "http")
        if case .failure(let failure) = response { throw ProblemDocument.failure(failure) }
      }
      return await doNotDisturb()
    }
    router.get("/v1/history") { request, _ in
      let query = try HistoryQuery.parse(request.uri.queryParameters)
      return await answer(query, source: "http")
    }
    router.post("/v1/push") { request, _ in
      let body = try await readBody(request)
      return await push(body, source: "http")
    }
    router.post("/v1/webhooks/json") { request, _ in
      let body = try await readBody(request)
      return await push(body, source: "webhook")
    }
    router.get("/v1/events") { request, _ in await events(request) }
    router.post("/v1/webhooks/sipgate") { request, _ in
      let form = try Self.form(try await readBody(request))
      let url = callbackURL(request)
      return await webhook({ () throws(InputError) in try SipgateWebhook.parse(form, callbackURL: url) }, "sipgate")
    }
    router.post("/v1/webhooks/twilio") { request, _ in
      let form = try Self.form(try await readBody(request))
      if let authToken = configuration.twilioAuthToken {
        let header = request.headers[HTTPField.Name("X-Twilio-Signature")!]
        guard TwilioSignature.isValid(header: header, url: callbackURL(request), form: form, authToken: authToken)
        else {
          throw ProblemDocument(
            "bad-signature", title: "Forbidden", status: 403,
            detail: "X-Twilio-Signature does not match the request signed with the configured auth token "
              + "(is http.public_url the URL Twilio calls?)", field: "X-Twilio-Signature", location: "header")
        }
      }
      // Twilio retries, and anyone who saw a request may send it again: a call already in the history is not
      // rung again, however long ago it rang (the engine forgets an ended call after its tombstone window).
      return await webhook(
        { () throws(InputError) in try TwilioWebhook.parse(form) }, "twilio", ringingAgain: .notRungAgain)
    }
    router.post("/v1/webhooks/vonage") { request, _ in
      // The JWT was judged by the middleware from the header; what it says of the body is checked once read.
      let claims = try vonageClaims(request)
      let body = try await readBody(request)
      if let claims {
        do throws(VonageSignatureError) {
          try claims.checkPayload(body)
        } catch {
          logger.notice("http: vonage webhook refused: \(error.check): \(error)")
          throw ProblemDocument.badSignature(error)
        }
      }
      return await webhook({ () throws(InputError) in try VonageWebhook.parse(body) }, "vonage")
    }
    return router
  }

  // MARK: - Answers

  /// Hands a request to the daemon and writes its answer: 200 with the control answer's JSON, or a problem.
  func answer(_ request: ControlRequest, source: String) async -> Response {
    let start = ContinuousClock.now
    let response = await backend.handle(request, source)
    if case .input(.call) = request, case .outcome(let outcome) = response, outcome.result == .ringing {
      metrics.recordCallToRinging(ContinuousClock.now - start)
    }
    if case .failure(let failure) = response { return ProblemDocument.failure(failure).response }
    return Self.json(response.line)
  }

  func push(_ body: [UInt8], source: String) async -> Response {
    do {
      let document = try PushPayload.Document.parse(body, origin: PushPayload.Origin(source: "body"))
      return await answer(.push(document), source: source)
    } catch {
      return ProblemDocument.badInput(error).response
    }
  }

  /// What a webhook does with a call whose id the history already holds.
  enum RingingAgain {
    /// Hands it to the engine, which ignores it while it rings or within its tombstone window.
    case toTheEngine
    /// Drops it as a replay: answered as usual, never rung again.
    case notRungAgain
  }

  /// A provider's webhook: its requests to the daemon in order, then the body the provider expects. A request
  /// the daemon refuses (too many calls) is logged, not answered as an error: the provider would retry.
  func webhook(
    _ parse: () throws(InputError) -> WebhookAnswer, _ provider: String, ringingAgain: RingingAgain = .toTheEngine
  ) async -> Response {
    let parsed: WebhookAnswer
    do {
      parsed = try parse()
    } catch {
      logger.notice("http: \(provider) webhook refused: \(error)")
      return ProblemDocument.badInput(error).response
    }
    for request in parsed.requests {
      if ringingAgain == .notRungAgain, case .input(.call(let call)) = request, await backend.callIsRecorded(call.id) {
        logger.notice(
          "http: \(provider) webhook: call \(DisplayText.excerpt(call.id)) is in the history: a replay, not rung")
        continue
      }
      let start = ContinuousClock.now
      let response = await backend.handle(request, provider)
      if case .input(.call) = request, case .outcome(let outcome) = response, outcome.result == .ringing {
        metrics.recordCallToRinging(ContinuousClock.now - start)
      }
      if !response.isSuccess { logger.notice("http: \(provider) webhook: \(response.line)") }
    }
    var headers = HTTPFields()
    headers[.contentType] = parsed.contentType
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: parsed.body)))
  }

  /// `GET /v1/dnd`: the do-not-disturb part of the status.
  func doNotDisturb() async -> Response {
    guard case .status(let report) = await backend.handle(.status, "http") else {
      return ProblemDocument.shuttingDown.response
    }
    guard let data = try? ControlResponse.encoder().encode(report.doNotDisturb) else {
      return ProblemDocument.shuttingDown.response
    }
    return Self.json(String(decoding: data, as: UTF8.self))
  }

  /// `GET /metrics`: the boards' gauges refreshed from the status, then every metric as Prometheus text.
  func metricsText() async -> Response {
    if case .status(let report) = await backend.handle(.status, "http") { metrics.update(from: report) }
    metrics.update(links: await backend.linkCounters())
    var headers = HTTPFields()
    headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.text())))
  }

  /// `GET /v1/events`: Server-Sent Events, resumed after `Last-Event-ID` (or `?last_event_id=`) from the kept
  /// events; a `lost` event first when some of those asked for are no longer kept.
  func events(_ request: Request) async -> Response {
    let header = request.headers[HTTPField.Name("Last-Event-ID")!]
    let query = request.uri.queryParameters["last_event_id"].map(String.init)
    let lastID = (header ?? query).flatMap { UInt64($0.trimmingWhitespace()) }
    let subscription = await feed.subscribe(after: lastID)
    let keepAlive = configuration.limits.eventKeepAlive
    var headers = HTTPFields()
    headers[.contentType] = "text/event-stream"
    headers[.cacheControl] = "no-store"
    return Response(
      status: .ok, headers: headers,
      body: ResponseBody { writer in
        var opening = "retry: 2000\n\n"
        if subscription.lost > 0 { opening += "event: lost\ndata: {\"lost\":\(subscription.lost)}\n\n" }
        opening += subscription.replay.map(EventFeed.wire).joined()
        try await writer.write(ByteBuffer(string: opening))
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
          group.addTask {
            for await entry in subscription.live { continuation.yield(EventFeed.wire(entry)) }
            continuation.finish()
          }
          group.addTask {
            while !Task.isCancelled {
              try await Task.sleep(for: keepAlive)
              continuation.yield(": keep-alive\n\n")
            }
          }
          defer { group.cancelAll() }
          for await text in lines { try await writer.write(ByteBuffer(string: text)) }
        }
        try await writer.finish(nil)
      })
  }

  // MARK: - Reading requests

  /// The body, at most the limit (a declared length over it was refused by the middleware; a chunked body is
  /// refused with 413 as soon as it passes the limit), within the body timeout.
  func readBody(_ request: Request) async throws(ProblemDocument) -> [UInt8] {
    let limits = configuration.limits
    let body = request.body
    let result: Result<[UInt8], ProblemDocument> = await withTaskGroup(of: Result<[UInt8], ProblemDocument>?.self) {
      group in
      group.addTask {
        do {
          let buffer = try await body.collect(upTo: limits.bodyBytes)
          return .success(Array(buffer.readableBytesView))
        } catch is NIOTooManyBytesError {
          // A chunked body past the limit (collect's own error; it was answered 400, "could not be read").
          return .failure(.tooLarge(limits.bodyBytes))
        } catch let error as HTTPError where error.status == .contentTooLarge {
          return .failure(.tooLarge(limits.bodyBytes))
        } catch {
          return .failure(.badInput("the body could not be read: \(error)", field: nil, location: "body"))
        }
      }
      group.addTask {
        try? await Task.sleep(for: limits.bodyTimeout)
        return Task.isCancelled ? nil : .failure(.tooSlow(limits.bodyTimeout))
      }
      var first: Result<[UInt8], ProblemDocument> = .failure(.tooSlow(limits.bodyTimeout))
      for await outcome in group {
        if let outcome {
          first = outcome
          break
        }
      }
      group.cancelAll()
      return first
    }
    return try result.get()
  }

  /// The Vonage signature secret's bytes, when one is configured.
  var vonageSecret: [UInt8]? { configuration.vonageSignatureSecret.map { Array($0.utf8) } }

  /// The claims of the request's Vonage JWT when a signature secret is configured (the middleware verified it
  /// already; this reads it again for its `payload_hash`), or nil without a secret.
  func vonageClaims(_ request: Request) throws(ProblemDocument) -> VonageSignature.Claims? {
    guard let vonageSecret else { return nil }
    do {
      return try VonageSignature.verify(
        authorization: request.headers[.authorization], secret: vonageSecret, now: Date())
    } catch {
      throw .badSignature(error)
    }
  }

  /// A JSON body as the control request `type` (its fields; `type` may be left out).
  func parse(_ body: [UInt8], type: String) throws(ProblemDocument) -> ControlRequest {
    do {
      return try ControlRequest.parse(body: body, type: type, source: "body")
    } catch {
      throw .badInput(error)
    }
  }

  static func form(_ body: [UInt8]) throws(ProblemDocument) -> FormBody {
    do {
      return try FormBody.parse(body)
    } catch {
      throw .badInput(error)
    }
  }

  /// The `{id}` of the path, percent-decoded and checked as every call id is.
  static func callID(_ context: Context) throws(ProblemDocument) -> String {
    let raw = context.parameters.get("id") ?? ""
    guard let id = PercentDecoding.decoded(raw) else {
      throw .badInput("'\(DisplayText.excerpt(raw))' is not a percent-encoded call id", field: "id", location: "path")
    }
    if let problem = CallID.problem(id) { throw .badInput(problem, field: "id", location: "path") }
    return id
  }

  /// The URL the provider called: `http.public_url` and the path and query, or `http://` and the `Host`.
  func callbackURL(_ request: Request) -> String {
    let pathAndQuery = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
    if let base = configuration.publicURL { return base + pathAndQuery }
    let host = request.head.authority ?? "\(configuration.host):\(configuration.port)"
    return "http://" + host + pathAndQuery
  }

  static func json(_ text: String) -> Response {
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    headers[.cacheControl] = "no-store"
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
  }
}
