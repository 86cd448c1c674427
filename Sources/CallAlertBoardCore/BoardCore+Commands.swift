import CallAlertProtocol

extension BoardCore {
  /// Where an inline pattern starts in PLAY's payload (token u32, cap_ms u16, options u8, source u8):
  /// bad_pattern's detail is a payload offset.
  static var inlinePatternOffset: Int { 8 }

  /// Acts on one command and answers it through the endpoint.
  mutating func handle(_ command: Command, sequence: UInt16, now: UInt64) {
    let answer = respond(to: command, now: now)
    endpoint.answer(sequence: sequence, type: command.type.rawValue, with: answer, now: now)
    // HELLO: the answer (INFO) goes out first and resets the command channel to follow HELLO's
    // sequence; opening the session then applies the window and resends any events that stalled,
    // which the host thus sees after INFO. Neither step reads what the other changes.
    if case .hello = command, case .reply = answer, let session {
      endpoint.openSession(session, now: now)
    } else if endpoint.sender.isPaused, let session {
      // Events stalled after their last try, but a command of this session just got through: the
      // host is back, so resend them now rather than wait for a HELLO it may have no reason to send
      // (PROTOCOL.md §5.5). A refused HELLO counts too: its session stays open (§7).
      endpoint.openSession(session, now: now)
    }
  }

  /// The answer to `command`, after acting on it. A NAK means nothing took effect.
  private mutating func respond(to command: Command, now: UInt64) -> Message {
    let type = command.type
    switch command {
    case .hello(let hello):
      guard
        let terms = SessionTerms.negotiate(
          hostMin: hello.minVersion, hostMax: hello.maxVersion, hostMaxPayload: Int(hello.maxPayload),
          hostWindow: Int(hello.window), boardMin: BoardConfiguration.versions.lowerBound,
          boardMax: BoardConfiguration.versions.upperBound, boardMaxPayload: Int(configuration.maxPayload),
          boardWindow: Int(configuration.window))
      else {
        let board = Nak(
          unsupportedVersions: BoardConfiguration.versions.lowerBound, max: BoardConfiguration.versions.upperBound)
        return .nak(to: type.rawValue, board)
      }
      session = terms
      tracesActuators = hello.traceActuators
      return .reply(to: type, .info(info))
    case .ping(let bytes):
      return .reply(to: type, .pong(bytes))
    case .getInfo:
      return .reply(to: type, .info(info))
    case .getStatus:
      return .reply(to: type, .status(status(nowMs: now)))
    case .play(let request):
      return play(request, now: now)
    case .stop(let token):
      guard let current = playback, token == Command.stopAll || token == current.token else {
        return .reply(to: type, .stopped(count: 0))
      }
      endPlay(.stopped, atMs: now)
      return .reply(to: type, .stopped(count: 1))
    case .lease(let ms):
      lease.set(lengthMs: ms, nowMs: now)
      return .reply(to: type, .ok)
    case .setIndicator(let setting):
      guard Int(setting.led) < indicators.count else {
        return .nak(to: type.rawValue, Nak(.badArgument, detail: 0))  // led is the payload's first byte
      }
      indicators[Int(setting.led)].set(setting, nowMs: now)
      return .reply(to: type, .ok)
    case .tableBegin(let begin):
      do throws(TableStore<Flash>.Failure) {
        try table.begin(size: begin.size, crc: begin.crc)
      } catch {
        return refuse(type, error)
      }
      // TABLE_DATA's payload is the offset (4 bytes) and the chunk.
      return .reply(to: type, .tableReady(maxChunk: UInt16(clamping: sessionMaxPayload - 4)))
    case .tableData(let offset, let bytes):
      do throws(TableStore<Flash>.Failure) {
        return .reply(to: type, .tableProgress(received: try table.write(offset: offset, bytes: bytes)))
      } catch {
        return refuse(type, error)
      }
    case .tableCommit(let crc):
      do throws(TableStore<Flash>.Failure) {
        return .reply(to: type, .tableCommitted(try table.commit(crc: crc)))
      } catch {
        return refuse(type, error)
      }
    case .tableAbort:
      table.abort()
      return .reply(to: type, .ok)
    case .tableRead(let read):
      do throws(TableStore<Flash>.Failure) {
        let length = min(Int(read.length), sessionMaxPayload)
        return .reply(to: type, .tableBytes(try table.read(read.area, offset: read.offset, length: length)))
      } catch {
        return refuse(type, error)
      }
    case .reset:
      resetRequested = true
      return .reply(to: type, .ok)
    }
  }

  /// PLAY: checks the token and the pattern, replaces what plays, renews the lease.
  private mutating func play(_ request: PlayRequest, now: UInt64) -> Message {
    let type = MessageType.play.rawValue
    guard request.token != 0 else { return .nak(to: type, Nak(.badToken)) }
    let pattern: Pattern
    var slot: UInt8? = nil
    switch request.source {
    case .slot(let number):
      guard let stored = table.pattern(slot: number) else {
        return .nak(to: type, Nak(.badSlot, detail: UInt32(number)))
      }
      pattern = stored
      slot = number
    case .inline(let inline):
      if let problem = configuration.patternLimits.problem(in: inline) {
        return .nak(to: type, Nak(.badPattern, detail: UInt32(Self.inlinePatternOffset + problem)))
      }
      pattern = inline
    }
    // Another token is replaced (it ends superseded); the same token restarts without an end.
    if let current = playback, current.token != request.token { endPlay(.superseded, atMs: now) }
    let cap = request.effectiveCapMs
    playback = Playback(
      token: request.token, slot: slot, options: request.options,
      player: Player(pattern: pattern, startMs: now, capMs: UInt64(cap)))
    lease.renew(nowMs: now)
    return .reply(to: .play, .playing(capMs: cap))
  }

  /// The NAK for a failed table operation; a flash failure also raises FAULT `flash`.
  private mutating func refuse(_ type: MessageType, _ failure: TableStore<Flash>.Failure) -> Message {
    if let address = failure.flashAddress {
      raise(.fault(FaultEvent(.flash, detail: UInt32(clamping: address))))
    }
    return .nak(to: type.rawValue, failure.nak)
  }

  /// The largest payload either side may send: the session's, or the board's before HELLO.
  private var sessionMaxPayload: Int { session?.maxPayload ?? Int(configuration.maxPayload) }

  /// INFO as HELLO and GET_INFO answer it now.
  /// Its layout is the session's version (before any session, which INFO never answers, the highest).
  public var info: BoardInfo {
    let version = session?.version ?? BoardConfiguration.versions.upperBound
    var capabilities = configuration.capabilities(tableCapacity: table.capacity, leaseMs: lease.lengthMs)
    if version < 2 { capabilities.eventQueue = 0 }  // a version-1 INFO has no room for it
    return BoardInfo(
      minVersion: BoardConfiguration.versions.lowerBound, maxVersion: BoardConfiguration.versions.upperBound,
      sessionVersion: version,
      firmware: (configuration.firmware.major, configuration.firmware.minor, configuration.firmware.patch),
      bootNonce: nonce, serial: configuration.serial, capabilities: capabilities, table: table.summary)
  }

  /// STATUS as GET_STATUS answers it at `nowMs`.
  public func status(nowMs: UInt64) -> BoardStatus {
    var counters = LinkCounters()
    let decoded = endpoint.decoder.counters
    counters.framesOK = decoded.frames
    counters.crcErrors = decoded.crc
    counters.framingErrors = decoded.framing
    counters.overlong = decoded.overlong
    counters.duplicates = endpoint.receiver.duplicates
    counters.faults = faultCount
    let now = max(nowMs, bootMs)
    var elapsed: UInt64 = 0
    var capRemaining: UInt64 = 0
    var leaseRemaining: UInt64 = 0
    if let current = playback {
      let start = current.player.startMs
      elapsed = now > start ? now - start : 0
      capRemaining = current.player.capMs > elapsed ? current.player.capMs - elapsed : 0
      leaseRemaining = lease.remainingMs(atMs: now)
    }
    let transfer = table.transfer
    return BoardStatus(
      uptimeMs: UInt32(truncatingIfNeeded: now - bootMs), token: playback?.token ?? 0, slot: playback?.slot,
      inline: playback != nil && playback?.slot == nil, elapsedMs: UInt32(clamping: elapsed),
      capRemainingMs: UInt16(clamping: capRemaining), leaseRemainingMs: UInt16(clamping: leaseRemaining),
      actuators: actuators, indicatorMode: indicators.first?.mode.rawValue ?? 0, transferActive: transfer != nil,
      transferReceived: transfer?.received ?? 0, transferSize: transfer?.size ?? 0, counters: counters)
  }
}
