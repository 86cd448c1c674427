import CallAlertProtocol

/// Converts between the codec's typed values and the readable JSON of the vector files, using the spec's
/// snake_case field names. Writing (`json…`, `fields…`) and reading (`message…`, `command…`, …) are separate code
/// paths, so a vector's fields are read back independently of how they were written.
enum VectorJSON {
  // MARK: - Message kinds and types

  /// The vector `kind` of a message: command, reply, nak, event, event_ack or notification.
  static func kind(of message: Message) -> String {
    switch message {
    case .command: "command"
    case .reply: "reply"
    case .nak: "nak"
    case .event: "event"
    case .eventAck: "event_ack"
    case .actuators: "notification"
    }
  }

  /// The type byte of the frame that carries `message`.
  static func typeCode(of message: Message) -> UInt8 {
    switch message {
    case .command(let command): command.type.rawValue
    case .reply(let type, _): type.rawValue
    case .nak(let type, _): type
    case .event(let event): event.type.rawValue
    case .eventAck(let type): type.rawValue
    case .actuators: MessageType.actuators.rawValue
    }
  }

  /// The spec name of a reply kind, e.g. TABLE_READY.
  static func replyName(_ reply: Reply) -> String {
    switch reply {
    case .info: "INFO"
    case .pong: "PONG"
    case .status: "STATUS"
    case .playing: "PLAYING"
    case .stopped: "STOPPED"
    case .ok: "OK"
    case .tableReady: "TABLE_READY"
    case .tableProgress: "TABLE_PROGRESS"
    case .tableCommitted: "TABLE_COMMITTED"
    case .tableBytes: "TABLE_BYTES"
    }
  }

  /// The message type with code `code`, or an error.
  static func messageType(_ code: UInt8) throws -> MessageType {
    guard let type = MessageType(rawValue: code) else {
      throw VectorFormatError("no message type 0x\(hexString([code]))")
    }
    return type
  }

  // MARK: - Writing fields

  /// The `fields` object of a message vector.
  static func fields(of message: Message) -> JSONValue {
    switch message {
    case .command(let command): return fields(of: command)
    case .reply(_, let reply): return fields(of: reply)
    case .nak(_, let nak):
      return .object([
        "code": nak.code.flatMap { VectorNames.errorCodes.name($0) }.map(JSONValue.string) ?? .null,
        "code_value": .int(nak.rawCode), "detail": .int(nak.detail),
      ])
    case .event(let event): return fields(of: event)
    case .eventAck: return .object([:])
    case .actuators(let trace):
      return .members([JSONMember(key: "board_ms", value: .int(trace.boardMs))] + actuatorMembers(trace.state))
    }
  }

  /// The fields of a command.
  static func fields(of command: Command) -> JSONValue {
    switch command {
    case .hello(let hello):
      return .object([
        "min_version": .int(hello.minVersion), "max_version": .int(hello.maxVersion),
        "max_payload": .int(hello.maxPayload), "window": .int(hello.window),
        "options": .array(hello.traceActuators ? ["trace_actuators"] : []),
      ])
    case .ping(let data): return .object(["data_hex": .string(hexString(data))])
    case .getInfo, .getStatus, .tableAbort: return .object([:])
    case .play(let play):
      let source: JSONValue =
        switch play.source {
        case .slot(let slot): .object(["slot": .int(slot)])
        case .inline(let pattern): .object(["inline": json(pattern)])
        }
      return .object([
        "token": .int(play.token), "cap_ms": .int(play.capMs),
        "options": .array(VectorNames.names(of: play.options).map(JSONValue.string)), "source": source,
      ])
    case .stop(let token): return .object(["token": .int(token)])
    case .lease(let ms): return .object(["lease_ms": .int(ms)])
    case .setIndicator(let setting):
      return .object([
        "led": .int(setting.led), "mode": .string(VectorNames.indicatorModes.name(setting.mode)!),
        "on_ms": .int(setting.onMs), "off_ms": .int(setting.offMs),
      ])
    case .tableBegin(let begin): return .object(["size": .int(begin.size), "crc": .int(begin.crc)])
    case .tableData(let offset, let data):
      return .object(["offset": .int(offset), "data_hex": .string(hexString(data))])
    case .tableCommit(let crc): return .object(["crc": .int(crc)])
    case .tableRead(let read):
      return .object([
        "area": .string(VectorNames.tableAreas.name(read.area)!), "offset": .int(read.offset),
        "length": .int(read.length),
      ])
    case .reset: return .object(["magic": .int(resetMagic)])
    }
  }

  /// The fields of a reply.
  static func fields(of reply: Reply) -> JSONValue {
    switch reply {
    case .info(let info): return json(info)
    case .pong(let data), .tableBytes(let data): return .object(["data_hex": .string(hexString(data))])
    case .status(let status): return json(status)
    case .playing(let cap): return .object(["cap_ms": .int(cap)])
    case .stopped(let count): return .object(["count": .int(count)])
    case .ok: return .object([:])
    case .tableReady(let chunk): return .object(["max_chunk": .int(chunk)])
    case .tableProgress(let received): return .object(["received": .int(received)])
    case .tableCommitted(let summary): return json(summary)
    }
  }

  /// The fields of an event.
  static func fields(of event: Event) -> JSONValue {
    switch event {
    case .boot(let boot):
      return .object([
        "reason": .string(VectorNames.bootReasons.name(boot.reason)!),
        "table_state": .string(VectorNames.bootTableStates.name(boot.table)!),
      ])
    case .button(let button):
      return .object([
        "button": .int(button.button), "kind": .string(VectorNames.pressKinds.name(button.kind)!),
        "held_ms": .int(button.heldMs),
      ])
    case .playEnded(let ended):
      return .object([
        "token": .int(ended.token), "reason": .string(VectorNames.playEndReasons.name(ended.reason)!),
        "played_ms": .int(ended.playedMs),
      ])
    case .fault(let fault):
      return .object([
        "code": fault.code.flatMap { VectorNames.faultCodes.name($0) }.map(JSONValue.string) ?? .null,
        "code_value": .int(fault.rawCode), "detail": .int(fault.detail),
      ])
    }
  }

  /// INFO's fields: the identity, then `capabilities` and `table` as nested objects. `event_queue` is in
  /// `capabilities` only for version 2 (v1.1), whose layout carries it.
  static func json(_ info: BoardInfo) -> JSONValue {
    let caps = info.capabilities
    var capabilities: [JSONMember] = [
      JSONMember(key: "buzzer_channels", value: .int(caps.buzzerChannels)),
      JSONMember(key: "buzzer_min_hz", value: .int(caps.buzzerMinHz)),
      JSONMember(key: "buzzer_max_hz", value: .int(caps.buzzerMaxHz)),
      JSONMember(key: "motor_channels", value: .int(caps.motorChannels)),
      JSONMember(key: "leds", value: .int(caps.leds)), JSONMember(key: "buttons", value: .int(caps.buttons)),
      JSONMember(key: "pattern_slots", value: .int(caps.patternSlots)),
      JSONMember(key: "max_steps", value: .int(caps.maxSteps)),
      JSONMember(key: "max_payload", value: .int(caps.maxPayload)), JSONMember(key: "window", value: .int(caps.window)),
      JSONMember(key: "table_capacity", value: .int(caps.tableCapacity)),
      JSONMember(key: "motor_max_on_ms", value: .int(caps.motorMaxOnMs)),
      JSONMember(key: "motor_duty_window_ms", value: .int(caps.motorDutyWindowMs)),
      JSONMember(key: "motor_max_duty_percent", value: .int(caps.motorMaxDutyPercent)),
      JSONMember(key: "lease_ms", value: .int(caps.leaseMs)),
    ]
    if info.sessionVersion >= 2 { capabilities.append(JSONMember(key: "event_queue", value: .int(caps.eventQueue))) }
    return .object([
      "min_version": .int(info.minVersion), "max_version": .int(info.maxVersion),
      "version": .int(info.sessionVersion), "firmware_major": .int(info.firmware.major),
      "firmware_minor": .int(info.firmware.minor), "firmware_patch": .int(info.firmware.patch),
      "boot_nonce": .int(info.bootNonce), "serial": .string(String(decoding: info.serial, as: UTF8.self)),
      "capabilities": .members(capabilities),
      "table": json(info.table),
    ])
  }

  /// A table summary (INFO's `table`, TABLE_COMMITTED's fields).
  static func json(_ summary: TableSummary) -> JSONValue {
    .object(["table_version": .int(summary.version), "table_crc": .int(summary.crc), "table_size": .int(summary.size)])
  }

  /// STATUS's fields.
  static func json(_ status: BoardStatus) -> JSONValue {
    let source = status.token == 0 ? "none" : (status.inline ? "inline" : "slot")
    let mode = IndicatorMode(rawValue: status.indicatorMode).flatMap { VectorNames.indicatorModes.name($0) }
    let counters = status.counters
    return .object([
      "uptime_ms": .int(status.uptimeMs), "token": .int(status.token), "source": .string(source),
      "slot": .int(status.slot ?? 0), "elapsed_ms": .int(status.elapsedMs),
      "cap_remaining_ms": .int(status.capRemainingMs), "lease_remaining_ms": .int(status.leaseRemainingMs),
      "actuators": .members(actuatorMembers(status.actuators)),
      "indicator_mode": mode.map(JSONValue.string) ?? .int(status.indicatorMode),
      "transfer_state": .string(status.transferActive ? "receiving" : "idle"),
      "transfer_received": .int(status.transferReceived), "transfer_size": .int(status.transferSize),
      "counters": .object([
        "frames_ok": .int(counters.framesOK), "crc_errors": .int(counters.crcErrors),
        "framing_errors": .int(counters.framingErrors), "overlong": .int(counters.overlong),
        "duplicates": .int(counters.duplicates), "faults": .int(counters.faults),
      ]),
    ])
  }

  /// The members of an actuator state, in layout order.
  static func actuatorMembers(_ state: ActuatorState) -> [JSONMember] {
    [
      JSONMember(key: "buzzer_hz", value: .int(state.buzzerHz)),
      JSONMember(key: "buzzer_volume", value: .int(state.buzzerVolume)),
      JSONMember(key: "leds", value: .int(state.leds)),
      JSONMember(key: "motors", value: .array(state.motors.map { .int($0) })),
    ]
  }

  /// A pattern: `repeat`, `loop_start` and its `steps` (the reserved flags byte is always 0 and not listed).
  static func json(_ pattern: Pattern) -> JSONValue {
    .object([
      "repeat": .int(pattern.repeatCount), "loop_start": .int(pattern.loopStart),
      "steps": .array(
        pattern.steps.map {
          .object([
            "duration_ms": .int($0.durationMs), "buzzer_hz": .int($0.buzzerHz),
            "buzzer_volume": .int($0.buzzerVolume), "motor": .int($0.motor), "leds": .int($0.leds),
          ])
        }),
    ])
  }

  /// A pattern table: its version and its slots, null for an empty one.
  static func json(_ table: PatternTable) -> JSONValue {
    .object([
      "version": .int(table.version),
      "slots": .array(
        table.slots.map { slot in
          guard let slot else { return .null }
          return .object(["name": .string(String(decoding: slot.name, as: UTF8.self)), "pattern": json(slot.pattern)])
        }),
    ])
  }

  // MARK: - Writing frames and errors

  /// A frame's header and payload, as the malformed vectors list decoded frames.
  static func json(_ frame: Frame) -> JSONValue {
    .object([
      "version": .int(frame.version), "flags_byte": .int(frame.flags.rawValue), "sequence": .int(frame.sequence),
      "type_code": .int(frame.type), "nonce": .int(frame.nonce), "payload_hex": .string(hexString(frame.payload)),
    ])
  }

  /// A payload error: its kind, the field's spec name and the field's byte offset.
  static func json(_ error: PayloadError) -> JSONValue {
    let kind =
      switch error.kind {
      case .truncated: "truncated"
      case .invalidValue: "invalid_value"
      case .trailingBytes: "trailing_bytes"
      }
    return .object(["kind": .string(kind), "field": .string(error.field.description), "offset": .int(error.offset)])
  }

  /// Why a frame was dropped.
  static func json(_ error: FrameError) -> JSONValue {
    switch error {
    case .cobs(.empty): .object(["error": "cobs_empty"])
    case .cobs(.zeroInBlock(let offset)): .object(["error": "cobs_zero_in_block", "offset": .int(offset)])
    case .cobs(.truncated(let offset)): .object(["error": "cobs_truncated", "offset": .int(offset)])
    case .tooShort(let count): .object(["error": "too_short", "count": .int(count)])
    case .overlong(let count): .object(["error": "overlong", "count": .int(count)])
    case .crcMismatch(let stated, let computed):
      .object(["error": "crc_mismatch", "stated": .int(stated), "computed": .int(computed)])
    case .lengthMismatch(let declared, let actual):
      .object(["error": "length_mismatch", "declared": .int(declared), "actual": .int(actual)])
    case .payloadTooLarge(let count, let limit):
      .object(["error": "payload_too_large", "count": .int(count), "limit": .int(limit)])
    case .unsupportedVersion(let version): .object(["error": "unsupported_version", "version": .int(version)])
    case .invalidFlags(let flags): .object(["error": "invalid_flags", "flags_byte": .int(flags)])
    }
  }

  /// Why a valid frame held no valid message.
  static func json(_ error: MessageError) -> JSONValue {
    switch error {
    case .unknownType(let type): return .object(["error": "unknown_type", "type_code": .int(type)])
    case .payload(let type, let payload):
      guard case .members(let members) = json(payload) else { return .null }
      return .members(
        [JSONMember(key: "error", value: "payload"), JSONMember(key: "type_code", value: .int(type))] + members)
    }
  }

  /// One output of the stream decoder: a frame with the outcome of reading its message, or a drop.
  static func json(_ output: FrameDecoder.Output) -> JSONValue {
    switch output {
    case .frame(let frame):
      let messageError: JSONValue
      do throws(MessageError) {
        _ = try Message.decode(frame)
        messageError = .null
      } catch {
        messageError = json(error)
      }
      return .object(["frame": json(frame), "message_error": messageError])
    case .dropped(let error): return .object(["dropped": json(error)])
    }
  }

  /// Decoder counters under the names STATUS gives them.
  static func json(_ counters: DecoderCounters) -> JSONValue {
    .object([
      "frames_ok": .int(counters.frames), "crc_errors": .int(counters.crc), "framing_errors": .int(counters.framing),
      "overlong": .int(counters.overlong),
    ])
  }

  // MARK: - Reading fields

  /// The message a vector describes, from its kind, type byte, reply name (replies only) and fields.
  static func message(kind: String, typeCode: UInt8, reply replyName: String?, fields: JSONValue) throws -> Message {
    switch kind {
    case "command": return .command(try command(type: messageType(typeCode), fields))
    case "reply":
      guard let replyName else { throw VectorFormatError("a reply vector needs \"reply\"") }
      return .reply(to: try messageType(typeCode), try reply(named: replyName, fields))
    case "nak":
      let nak = Nak(rawCode: try fields.integer("code_value"), detail: try fields.integer("detail"))
      let code = try fields.member("code")
      if !code.isNull, try VectorNames.errorCodes.value(code.string()).rawValue != nak.rawCode {
        throw VectorFormatError("NAK code \(code) disagrees with code_value \(nak.rawCode)")
      }
      return .nak(to: typeCode, nak)
    case "event": return .event(try event(type: messageType(typeCode), fields))
    case "event_ack": return .eventAck(try messageType(typeCode))
    case "notification":
      return .actuators(ActuatorTrace(boardMs: try fields.integer("board_ms"), state: try actuatorState(fields)))
    default: throw VectorFormatError("unknown kind \"\(kind)\"")
    }
  }

  /// A command of `type` from its fields.
  static func command(type: MessageType, _ f: JSONValue) throws -> Command {
    switch type {
    case .hello:
      let options = try f.member("options").names()
      guard options.allSatisfy({ $0 == "trace_actuators" }) else { throw VectorFormatError("HELLO options \(options)") }
      return .hello(
        Hello(
          minVersion: try f.integer("min_version"), maxVersion: try f.integer("max_version"),
          maxPayload: try f.integer("max_payload"), window: try f.integer("window"),
          traceActuators: options.contains("trace_actuators")))
    case .ping: return .ping(try f.hexBytes("data_hex"))
    case .getInfo: return .getInfo
    case .getStatus: return .getStatus
    case .play:
      let source = try f.member("source")
      let patternSource: PatternSource
      if let slot = source["slot"] {
        patternSource = .slot(try slot.integer())
      } else {
        patternSource = .inline(try pattern(source.member("inline")))
      }
      return .play(
        PlayRequest(
          token: try f.integer("token"), capMs: try f.integer("cap_ms"),
          options: try VectorNames.playOptions(f.member("options").names()), source: patternSource))
    case .stop: return .stop(token: try f.integer("token"))
    case .lease: return .lease(ms: try f.integer("lease_ms"))
    case .setIndicator:
      return .setIndicator(
        IndicatorSetting(
          led: try f.integer("led"), mode: try VectorNames.indicatorModes.value(f.string("mode")),
          onMs: try f.integer("on_ms"), offMs: try f.integer("off_ms")))
    case .tableBegin: return .tableBegin(TableBegin(size: try f.integer("size"), crc: try f.integer("crc")))
    case .tableData: return .tableData(offset: try f.integer("offset"), bytes: try f.hexBytes("data_hex"))
    case .tableCommit: return .tableCommit(crc: try f.integer("crc"))
    case .tableAbort: return .tableAbort
    case .tableRead:
      return .tableRead(
        TableRead(
          area: try VectorNames.tableAreas.value(f.string("area")), offset: try f.integer("offset"),
          length: try f.integer("length")))
    case .reset:
      guard try f.integer("magic", as: UInt32.self) == resetMagic else { throw VectorFormatError("RESET magic") }
      return .reset
    case .boot, .button, .playEnded, .fault, .actuators:
      throw VectorFormatError("\(type) is not a command")
    }
  }

  /// A reply named `name` (INFO, PONG, …) from its fields.
  static func reply(named name: String, _ f: JSONValue) throws -> Reply {
    switch name {
    case "INFO": return .info(try boardInfo(f))
    case "PONG": return .pong(try f.hexBytes("data_hex"))
    case "STATUS": return .status(try boardStatus(f))
    case "PLAYING": return .playing(capMs: try f.integer("cap_ms"))
    case "STOPPED": return .stopped(count: try f.integer("count"))
    case "OK": return .ok
    case "TABLE_READY": return .tableReady(maxChunk: try f.integer("max_chunk"))
    case "TABLE_PROGRESS": return .tableProgress(received: try f.integer("received"))
    case "TABLE_COMMITTED": return .tableCommitted(try tableSummary(f))
    case "TABLE_BYTES": return .tableBytes(try f.hexBytes("data_hex"))
    default: throw VectorFormatError("unknown reply \"\(name)\"")
    }
  }

  /// An event of `type` from its fields.
  static func event(type: MessageType, _ f: JSONValue) throws -> Event {
    switch type {
    case .boot:
      return .boot(
        BootEvent(
          reason: try VectorNames.bootReasons.value(f.string("reason")),
          table: try VectorNames.bootTableStates.value(f.string("table_state"))))
    case .button:
      return .button(
        ButtonEvent(
          button: try f.integer("button"), kind: try VectorNames.pressKinds.value(f.string("kind")),
          heldMs: try f.integer("held_ms")))
    case .playEnded:
      return .playEnded(
        PlayEndedEvent(
          token: try f.integer("token"), reason: try VectorNames.playEndReasons.value(f.string("reason")),
          playedMs: try f.integer("played_ms")))
    case .fault: return .fault(FaultEvent(rawCode: try f.integer("code_value"), detail: try f.integer("detail")))
    default: throw VectorFormatError("\(type) is not an event")
    }
  }

  /// INFO from its fields.
  static func boardInfo(_ f: JSONValue) throws -> BoardInfo {
    let c = try f.member("capabilities")
    return BoardInfo(
      minVersion: try f.integer("min_version"), maxVersion: try f.integer("max_version"),
      sessionVersion: try f.integer("version"),
      firmware: (
        major: try f.integer("firmware_major"), minor: try f.integer("firmware_minor"),
        patch: try f.integer("firmware_patch")
      ),
      bootNonce: try f.integer("boot_nonce"), serial: ascii(try f.string("serial")),
      capabilities: Capabilities(
        buzzerChannels: try c.integer("buzzer_channels"), buzzerMinHz: try c.integer("buzzer_min_hz"),
        buzzerMaxHz: try c.integer("buzzer_max_hz"), motorChannels: try c.integer("motor_channels"),
        leds: try c.integer("leds"), buttons: try c.integer("buttons"), patternSlots: try c.integer("pattern_slots"),
        maxSteps: try c.integer("max_steps"), maxPayload: try c.integer("max_payload"),
        window: try c.integer("window"), tableCapacity: try c.integer("table_capacity"),
        motorMaxOnMs: try c.integer("motor_max_on_ms"), motorDutyWindowMs: try c.integer("motor_duty_window_ms"),
        motorMaxDutyPercent: try c.integer("motor_max_duty_percent"), leaseMs: try c.integer("lease_ms"),
        eventQueue: c["event_queue"] == nil ? 0 : try c.integer("event_queue")),
      table: try tableSummary(f.member("table")))
  }

  /// A table summary from `table_version`, `table_crc` and `table_size`.
  static func tableSummary(_ f: JSONValue) throws -> TableSummary {
    TableSummary(
      version: try f.integer("table_version"), crc: try f.integer("table_crc"), size: try f.integer("table_size"))
  }

  /// STATUS from its fields.
  static func boardStatus(_ f: JSONValue) throws -> BoardStatus {
    let source = try f.string("source")
    guard ["none", "slot", "inline"].contains(source) else { throw VectorFormatError("STATUS source \(source)") }
    let mode = try f.member("indicator_mode")
    let indicator: UInt8 =
      if case .string(let name) = mode { try VectorNames.indicatorModes.value(name).rawValue } else {
        try mode.integer()
      }
    let transfer = try f.string("transfer_state")
    guard transfer == "idle" || transfer == "receiving" else { throw VectorFormatError("transfer_state \(transfer)") }
    let c = try f.member("counters")
    var counters = LinkCounters()
    counters.framesOK = try c.integer("frames_ok")
    counters.crcErrors = try c.integer("crc_errors")
    counters.framingErrors = try c.integer("framing_errors")
    counters.overlong = try c.integer("overlong")
    counters.duplicates = try c.integer("duplicates")
    counters.faults = try c.integer("faults")
    return BoardStatus(
      uptimeMs: try f.integer("uptime_ms"), token: try f.integer("token"),
      slot: source == "slot" ? try f.integer("slot") : nil, inline: source == "inline",
      elapsedMs: try f.integer("elapsed_ms"), capRemainingMs: try f.integer("cap_remaining_ms"),
      leaseRemainingMs: try f.integer("lease_remaining_ms"), actuators: try actuatorState(f.member("actuators")),
      indicatorMode: indicator, transferActive: transfer == "receiving",
      transferReceived: try f.integer("transfer_received"), transferSize: try f.integer("transfer_size"),
      counters: counters)
  }

  /// An actuator state from `buzzer_hz`, `buzzer_volume`, `leds` and `motors`.
  static func actuatorState(_ f: JSONValue) throws -> ActuatorState {
    ActuatorState(
      buzzerHz: try f.integer("buzzer_hz"), buzzerVolume: try f.integer("buzzer_volume"), leds: try f.integer("leds"),
      motors: try f.array("motors").map { try $0.integer() })
  }

  /// A pattern from `repeat`, `loop_start` and `steps`.
  static func pattern(_ f: JSONValue) throws -> Pattern {
    Pattern(
      steps: try f.array("steps").map {
        PatternStep(
          durationMs: try $0.integer("duration_ms"), buzzerHz: try $0.integer("buzzer_hz"),
          buzzerVolume: try $0.integer("buzzer_volume"), motor: try $0.integer("motor"), leds: try $0.integer("leds"))
      },
      repeatCount: try f.integer("repeat"), loopStart: try f.integer("loop_start"))
  }

  /// A pattern table from `version` and `slots`.
  static func table(_ f: JSONValue) throws -> PatternTable {
    PatternTable(
      version: try f.integer("version"),
      slots: try f.array("slots").map { slot in
        if slot.isNull { return nil }
        return PatternTable.Slot(name: ascii(try slot.string("name")), pattern: try pattern(slot.member("pattern")))
      })
  }
}
