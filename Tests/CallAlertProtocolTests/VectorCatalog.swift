import CallAlertProtocol

/// Every vector, defined once: the generator behind the files in `Protocol/vectors`.
///
/// Raw and wire bytes are assembled with ``ReferenceCodec`` (not with the codec under test), tables are laid out by
/// hand, and every expected error is written here explicitly, so the files check the codec instead of recording
/// whatever it does. Only message payloads come from the codec's encoders; `HandCheckedLayoutTests` checks a
/// selection of them byte by byte against the layouts.
enum VectorCatalog {
  /// The vector files, in the order the README describes them.
  static let fileNames = ["crc-cobs.json", "messages.json", "malformed.json", "patterns.json"]

  /// The document of vector file `name`.
  static func document(named name: String) throws -> JSONValue {
    switch name {
    case "crc-cobs.json": return crcCOBSDocument()
    case "messages.json": return messagesDocument()
    case "malformed.json": return malformedDocument()
    case "patterns.json": return patternsDocument()
    default: throw VectorFormatError("no vector file named \(name)")
    }
  }

  // MARK: - Sample values

  /// The board's boot nonce in the samples.
  static let boardNonce: UInt32 = 0x1A2B_3C4D
  /// The nonce after the sample board restarted.
  static let rebootedNonce: UInt32 = 0x5E6F_7081

  /// One 250 ms beep with LED 0.
  static let singleStepPattern = Pattern(
    steps: [PatternStep(durationMs: 250, buzzerHz: 2700, buzzerVolume: 200, leds: 0b01)])
  /// A buzz, then a beep and a pause repeated three more times (loop_start 1).
  static let loopedPattern = Pattern(
    steps: [
      PatternStep(durationMs: 100, motor: 255),
      PatternStep(durationMs: 200, buzzerHz: 2000, buzzerVolume: 128, leds: 0b01),
      PatternStep(durationMs: 150),
    ],
    repeatCount: 3, loopStart: 1)
  /// A ring and a pause, repeated until the cap.
  static let foreverPattern = Pattern(
    steps: [
      PatternStep(durationMs: 400, buzzerHz: 880, buzzerVolume: 255, motor: 200, leds: 0b11),
      PatternStep(durationMs: 600),
    ],
    repeatCount: Pattern.repeatForever)

  /// A table with three slots, the middle one empty.
  static let sampleTable = PatternTable(
    version: 7,
    slots: [
      PatternTable.Slot(name: ascii("ring"), pattern: foreverPattern), nil,
      PatternTable.Slot(name: ascii("vibrate"), pattern: loopedPattern),
    ])

  /// ``sampleTable`` laid out by ``ReferenceCodec/table(version:slots:)``.
  static let sampleTableBytes = ReferenceCodec.table(
    version: 7, slots: [("ring", referenceBytes(foreverPattern)), nil, ("vibrate", referenceBytes(loopedPattern))])

  /// The CRC stored in the sample table's last four bytes.
  static var sampleTableCRC: UInt32 { ReferenceCodec.crc32c(sampleTableBytes.dropLast(4)) }

  /// The table of PROTOCOL.md §12.2: slot 0 "ring" (400 ms of 2000 Hz, volume 200, motor full, LED 0, then 600 ms
  /// of silence, repeat 255), slot 1 empty, version 7; 88 bytes, table_crc 0xB03A8CC4.
  static let specExampleTable = PatternTable(
    version: 7,
    slots: [
      PatternTable.Slot(
        name: ascii("ring"),
        pattern: Pattern(
          steps: [
            PatternStep(durationMs: 400, buzzerHz: 2000, buzzerVolume: 200, motor: 255, leds: 0b01),
            PatternStep(durationMs: 600),
          ],
          repeatCount: Pattern.repeatForever)),
      nil,
    ])

  /// The bytes of `pattern` written by ``ReferenceCodec/pattern(repeat:loopStart:steps:flags:)``.
  static func referenceBytes(_ pattern: Pattern) -> [UInt8] {
    ReferenceCodec.pattern(
      repeat: pattern.repeatCount, loopStart: pattern.loopStart,
      steps: pattern.steps.map {
        ReferenceCodec.Step(
          durationMs: $0.durationMs, buzzerHz: $0.buzzerHz, buzzerVolume: $0.buzzerVolume, motor: $0.motor,
          leds: $0.leds)
      })
  }

  /// The sample board's capabilities.
  static let sampleCapabilities = Capabilities(
    buzzerChannels: 1, buzzerMinHz: 400, buzzerMaxHz: 5000, motorChannels: 1, leds: 2, buttons: 1, patternSlots: 16,
    maxSteps: 64, maxPayload: 1024, window: 8, tableCapacity: 8192, motorMaxOnMs: 8000, motorDutyWindowMs: 60_000,
    motorMaxDutyPercent: 50, leaseMs: 3000)

  /// The sample board's INFO for a session of `sessionVersion` (event_queue 16 when the layout has it).
  static func sampleInfo(sessionVersion: UInt8, maxVersion: UInt8 = 1) -> BoardInfo {
    var capabilities = sampleCapabilities
    if sessionVersion >= 2 { capabilities.eventQueue = 16 }
    return BoardInfo(
      minVersion: 1, maxVersion: maxVersion, sessionVersion: sessionVersion, firmware: (major: 1, minor: 4, patch: 2),
      bootNonce: boardNonce, serial: ascii("CA1-000042"), capabilities: capabilities,
      table: TableSummary(version: 7, crc: sampleTableCRC, size: UInt32(sampleTableBytes.count)))
  }

  /// The payload of the sample INFO (versions 1..1) with its version byte set to `sessionVersion`.
  static func infoPayload(sessionVersion: UInt8) -> [UInt8] {
    var payload = Message.reply(to: .getInfo, .info(sampleInfo(sessionVersion: 1))).frame(sequence: 0, nonce: 0).payload
    payload[2] = sessionVersion
    return payload
  }

  /// The payload of the sample INFO in the layout of `layoutVersion`, with its three version bytes set as given.
  static func infoPayload(
    minVersion: UInt8, maxVersion: UInt8, sessionVersion: UInt8, layoutVersion: UInt8
  ) -> [UInt8] {
    let info = sampleInfo(sessionVersion: layoutVersion, maxVersion: layoutVersion)
    var payload = Message.reply(to: .getInfo, .info(info)).frame(sequence: 0, nonce: 0).payload
    payload[0] = minVersion
    payload[1] = maxVersion
    payload[2] = sessionVersion
    return payload
  }

  /// The INFO of a board at the lower bounds of Capabilities (PROTOCOL.md §10.2): `max_payload` 128, `window` 1,
  /// `event_queue` 2 (version 2), no serial number: 48 bytes in version 1, 49 in version 2.
  static func smallestInfo(sessionVersion: UInt8) -> BoardInfo {
    var capabilities = sampleCapabilities
    capabilities.maxPayload = 128
    capabilities.window = 1
    if sessionVersion >= 2 { capabilities.eventQueue = 2 }
    return BoardInfo(
      minVersion: 1, maxVersion: 2, sessionVersion: sessionVersion, firmware: (major: 0, minor: 1, patch: 0),
      bootNonce: boardNonce, serial: [], capabilities: capabilities, table: .none)
  }

  /// Counters a sample STATUS reports.
  static var sampleCounters: LinkCounters {
    var counters = LinkCounters()
    counters.framesOK = 42
    counters.crcErrors = 1
    counters.framingErrors = 2
    counters.overlong = 0
    counters.duplicates = 3
    counters.faults = 0
    return counters
  }

  /// STATUS while slot 2 plays under token 7.
  static var statusPlayingSlot: BoardStatus {
    BoardStatus(
      uptimeMs: 123_456, token: 7, slot: 2, inline: false, elapsedMs: 1500, capRemainingMs: 16_500,
      leaseRemainingMs: 2500, actuators: ActuatorState(buzzerHz: 2700, buzzerVolume: 200, leds: 0b01, motors: [255]),
      indicatorMode: IndicatorMode.blink.rawValue, transferActive: false, transferReceived: 0, transferSize: 0,
      counters: sampleCounters)
  }

  /// STATUS with nothing playing and a table transfer half done.
  static var statusIdleReceiving: BoardStatus {
    BoardStatus(
      uptimeMs: 9000, token: 0, slot: nil, inline: false, elapsedMs: 0, capRemainingMs: 0, leaseRemainingMs: 0,
      actuators: .off(motorCount: 1), indicatorMode: IndicatorMode.off.rawValue, transferActive: true,
      transferReceived: 64, transferSize: UInt32(sampleTableBytes.count), counters: LinkCounters())
  }

  /// STATUS while an inline pattern plays under token 8.
  static var statusPlayingInline: BoardStatus {
    BoardStatus(
      uptimeMs: 70_000, token: 8, slot: nil, inline: true, elapsedMs: 250, capRemainingMs: 29_750,
      leaseRemainingMs: 2750, actuators: ActuatorState(motors: [255, 128]), indicatorMode: IndicatorMode.on.rawValue,
      transferActive: false, transferReceived: 0, transferSize: 0, counters: sampleCounters)
  }

  // MARK: - messages.json

  /// One entry of messages.json: a name, the header's sequence and nonce, and the message.
  struct MessageDefinition: Sendable {
    let name: String
    let sequence: UInt16
    let nonce: UInt32
    let message: Message
    let note: String?
  }

  /// A message vector with the sample board's nonce unless told otherwise.
  static func vector(
    _ name: String, sequence: UInt16, nonce: UInt32 = boardNonce, _ message: Message, note: String? = nil
  ) -> MessageDefinition {
    MessageDefinition(name: name, sequence: sequence, nonce: nonce, message: message, note: note)
  }

  /// Every command, reply kind, NAK, event, event acknowledgement and notification.
  static var messageDefinitions: [MessageDefinition] {
    let table = sampleTableBytes
    let summary = TableSummary(version: 7, crc: sampleTableCRC, size: UInt32(table.count))
    let pingData: [UInt8] = [0xCA, 0x11, 0x00, 0xFF]
    return [
      // Commands.
      vector(
        "hello", sequence: 0, nonce: 0,
        .command(.hello(Hello(minVersion: 1, maxVersion: 1, maxPayload: 1024, window: 8))),
        note: "the host does not know the board's nonce before the first board frame: 0"),
      vector(
        "hello_trace_actuators", sequence: 0,
        .command(.hello(Hello(minVersion: 1, maxVersion: 2, maxPayload: 256, window: 4, traceActuators: true)))),
      vector("ping", sequence: 1, .command(.ping(pingData)), note: "the payload holds a 0x00, which COBS removes"),
      vector("ping_empty", sequence: 2, .command(.ping([]))),
      vector("ping_sequence_ffff", sequence: 0xFFFF, .command(.ping([0x01])), note: "the next sequence is 0x0000"),
      vector("get_info", sequence: 3, .command(.getInfo)),
      vector("get_status", sequence: 4, .command(.getStatus)),
      vector("play_slot", sequence: 5, .command(.play(PlayRequest(token: 7, capMs: 18_000, source: .slot(2))))),
      vector(
        "play_with_options", sequence: 6,
        .command(.play(PlayRequest(token: 7, capMs: 18_000, options: [.muteBuzzer], source: .slot(2))))),
      vector(
        "play_inline_pattern", sequence: 7,
        .command(.play(PlayRequest(token: 8, capMs: 0, options: [.muteLeds], source: .inline(loopedPattern)))),
        note: "cap_ms 0 means the absolute cap, 30000"),
      vector(
        "play_cap_above_absolute", sequence: 8,
        .command(.play(PlayRequest(token: 9, capMs: 45_000, options: [.muteBuzzer, .muteMotor], source: .slot(0)))),
        note: "the board applies 30000"),
      vector("stop_token", sequence: 9, .command(.stop(token: 7))),
      vector("stop_all", sequence: 10, .command(.stop(token: Command.stopAll))),
      vector("lease", sequence: 11, .command(.lease(ms: 3000))),
      vector("set_indicator_off", sequence: 12, .command(.setIndicator(IndicatorSetting(led: 0, mode: .off)))),
      vector("set_indicator_on", sequence: 13, .command(.setIndicator(IndicatorSetting(led: 1, mode: .on)))),
      vector(
        "set_indicator_blink", sequence: 14,
        .command(.setIndicator(IndicatorSetting(led: 0, mode: .blink, onMs: 500, offMs: 1500)))),
      vector(
        "table_begin", sequence: 15, .command(.tableBegin(TableBegin(size: UInt32(table.count), crc: sampleTableCRC))),
        note: "announces the sample table of patterns.json; crc is the table's trailer (CRC-32C of bytes 0..<size-4)"),
      vector("table_data", sequence: 16, .command(.tableData(offset: 0, bytes: Array(table[0..<48])))),
      vector(
        "table_data_last_chunk", sequence: 17, .command(.tableData(offset: 128, bytes: Array(table[128...])))),
      vector("table_commit", sequence: 18, .command(.tableCommit(crc: sampleTableCRC))),
      vector("table_abort", sequence: 19, .command(.tableAbort)),
      vector(
        "table_read_active", sequence: 20, .command(.tableRead(TableRead(area: .active, offset: 0, length: 64)))),
      vector(
        "table_read_staged", sequence: 21, .command(.tableRead(TableRead(area: .staged, offset: 16, length: 24)))),
      vector("reset", sequence: 22, .command(.reset), note: "magic \"RST!\" little-endian"),

      // Replies (ACKs): the sequence and type of the command they answer.
      vector(
        "reply_info_to_hello", sequence: 0, .reply(to: .hello, .info(sampleInfo(sessionVersion: 1))),
        note: "a v1.0 board (versions 1..1): Capabilities in the 25-byte layout of version 1"),
      vector(
        "reply_info_to_hello_version_2", sequence: 0,
        .reply(to: .hello, .info(sampleInfo(sessionVersion: 2, maxVersion: 2))),
        note: "a v1.1 board and host negotiated version 2: Capabilities has 26 bytes, event_queue last"),
      vector(
        "reply_info_to_hello_version_1_from_v1_1_board", sequence: 0,
        .reply(to: .hello, .info(sampleInfo(sessionVersion: 1, maxVersion: 2))),
        note: "a v1.1 board (versions 1..2) and a v1.0 host (max_version 1): version 1, the 25-byte layout"),
      vector(
        "reply_info_to_get_info", sequence: 3,
        .reply(to: .getInfo, .info(sampleInfo(sessionVersion: 2, maxVersion: 2))),
        note: "GET_INFO is answered within a session only (before HELLO: no_session), so version is never 0"),
      vector(
        "reply_info_from_board_speaking_versions_1_to_3", sequence: 0,
        .reply(to: .hello, .info(sampleInfo(sessionVersion: 2, maxVersion: 3))),
        note:
          "a later board (versions 1..3) and a v1.1 host (max_version 2): version 2 is negotiated and INFO has its "
          + "layout; max_version 3 only enters the negotiation (§10.4)"),
      vector(
        "reply_info_smallest_version_1", sequence: 0, .reply(to: .hello, .info(smallestInfo(sessionVersion: 1))),
        note: "no serial, max_payload 128, window 1: 48 + s bytes with s = 0 (§10.2, §10.4)"),
      vector(
        "reply_info_smallest_version_2", sequence: 0, .reply(to: .hello, .info(smallestInfo(sessionVersion: 2))),
        note: "no serial, max_payload 128, window 1, event_queue 2: 49 + s bytes with s = 0 (§10.2, §10.4)"),
      vector("reply_pong", sequence: 1, .reply(to: .ping, .pong(pingData))),
      vector("reply_pong_empty", sequence: 2, .reply(to: .ping, .pong([]))),
      vector("reply_status_playing_slot", sequence: 4, .reply(to: .getStatus, .status(statusPlayingSlot))),
      vector("reply_status_playing_inline", sequence: 4, .reply(to: .getStatus, .status(statusPlayingInline))),
      vector("reply_status_idle_receiving", sequence: 4, .reply(to: .getStatus, .status(statusIdleReceiving))),
      vector("reply_playing", sequence: 5, .reply(to: .play, .playing(capMs: 18_000))),
      vector("reply_playing_capped", sequence: 8, .reply(to: .play, .playing(capMs: absoluteCapMs))),
      vector("reply_stopped", sequence: 9, .reply(to: .stop, .stopped(count: 1))),
      vector("reply_stopped_nothing", sequence: 10, .reply(to: .stop, .stopped(count: 0))),
      vector("reply_ok_to_lease", sequence: 11, .reply(to: .lease, .ok)),
      vector("reply_ok_to_set_indicator", sequence: 14, .reply(to: .setIndicator, .ok)),
      vector("reply_ok_to_table_abort", sequence: 19, .reply(to: .tableAbort, .ok)),
      vector("reply_ok_to_reset", sequence: 22, .reply(to: .reset, .ok)),
      vector("reply_table_ready", sequence: 15, .reply(to: .tableBegin, .tableReady(maxChunk: 512))),
      vector("reply_table_progress", sequence: 16, .reply(to: .tableData, .tableProgress(received: 48))),
      vector("reply_table_committed", sequence: 18, .reply(to: .tableCommit, .tableCommitted(summary))),
      vector("reply_table_bytes", sequence: 20, .reply(to: .tableRead, .tableBytes(Array(table[0..<16])))),

      // NAKs.
      vector(
        "nak_stale_nonce", sequence: 5, nonce: rebootedNonce, .nak(to: MessageType.play.rawValue, Nak(.staleNonce))),
      vector("nak_no_session", sequence: 4, .nak(to: MessageType.getStatus.rawValue, Nak(.noSession))),
      vector(
        "nak_sequence_gap", sequence: 10, .nak(to: MessageType.stop.rawValue, Nak(.sequenceGap, detail: 8)),
        note: "detail: the sequence the board expected"),
      vector("nak_bad_slot", sequence: 5, .nak(to: MessageType.play.rawValue, Nak(.badSlot, detail: 9))),
      vector(
        "nak_bad_payload", sequence: 5, .nak(to: MessageType.play.rawValue, Nak(.badPayload, detail: 4)),
        note: "detail: the payload offset of the bad field"),
      vector(
        "nak_unknown_type", sequence: 23, .nak(to: 0x7E, Nak(.unknownType, detail: 0x7E)),
        note: "the answer carries the unknown type byte it refuses"),
      vector(
        "nak_unsupported_version", sequence: 0,
        .nak(to: MessageType.hello.rawValue, Nak(.unsupportedVersion, detail: 0x0101)),
        note: "detail: board min | max << 8"),
      vector(
        "nak_table_crc_mismatch", sequence: 18,
        .nak(to: MessageType.tableCommit.rawValue, Nak(.crcMismatch, detail: 0xDEAD_BEEF))),
      vector("nak_bad_offset", sequence: 17, .nak(to: MessageType.tableData.rawValue, Nak(.badOffset, detail: 48))),
      vector(
        "nak_code_unknown_to_v1", sequence: 11, .nak(to: MessageType.lease.rawValue, Nak(rawCode: 0x7F, detail: 1)),
        note: "a code from a newer board: code is null, code_value is kept"),

      // Events, in the board's own sequence space.
      vector("event_boot_power_on", sequence: 0, .event(.boot(BootEvent(reason: .powerOn, table: .ok)))),
      vector(
        "event_boot_after_reset", sequence: 0, nonce: rebootedNonce,
        .event(.boot(BootEvent(reason: .resetCommand, table: .fellBack))), note: "the header carries the fresh nonce"),
      vector("event_boot_watchdog_no_table", sequence: 0, .event(.boot(BootEvent(reason: .watchdog, table: .none)))),
      vector("event_button_press", sequence: 1, .event(.button(ButtonEvent(button: 0, kind: .press, heldMs: 180)))),
      vector(
        "event_button_long_press", sequence: 2,
        .event(.button(ButtonEvent(button: 0, kind: .longPress, heldMs: 1000))),
        note: "a long press is reported when it has been held 1 000 ms (PROTOCOL.md §9.2, §13.5)"),
      vector(
        "event_play_ended_completed", sequence: 3,
        .event(.playEnded(PlayEndedEvent(token: 7, reason: .completed, playedMs: 1500)))),
      vector(
        "event_play_ended_stopped", sequence: 4,
        .event(.playEnded(PlayEndedEvent(token: 7, reason: .stopped, playedMs: 820)))),
      vector(
        "event_play_ended_cap", sequence: 5,
        .event(.playEnded(PlayEndedEvent(token: 8, reason: .cap, playedMs: 30_000)))),
      vector(
        "event_play_ended_lease", sequence: 6,
        .event(.playEnded(PlayEndedEvent(token: 8, reason: .lease, playedMs: 3100)))),
      vector(
        "event_play_ended_fault", sequence: 7,
        .event(.playEnded(PlayEndedEvent(token: 9, reason: .fault, playedMs: 8000)))),
      vector(
        "event_play_ended_superseded", sequence: 8,
        .event(.playEnded(PlayEndedEvent(token: 9, reason: .superseded, playedMs: 40)))),
      vector("event_fault_motor_on_time", sequence: 9, .event(.fault(FaultEvent(.motorOnTime, detail: 8000)))),
      vector("event_fault_event_overflow", sequence: 10, .event(.fault(FaultEvent(.eventOverflow, detail: 3)))),
      vector(
        "event_fault_tick_overrun", sequence: 12, .event(.fault(FaultEvent(.tickOverrun, detail: 150))),
        note: "the tick ran 150 ms after a scheduled change (threshold 50 ms, at most one per 1 000 ms, §13.8)"),
      vector(
        "event_fault_code_unknown_to_v1", sequence: 11, .event(.fault(FaultEvent(rawCode: 0x40, detail: 0x1234))),
        note: "a code from a newer board: code is null, code_value is kept"),

      // The host's acknowledgements of events: the event's sequence and type, no payload.
      vector("event_ack_boot", sequence: 0, .eventAck(.boot)),
      vector("event_ack_button", sequence: 1, .eventAck(.button)),
      vector("event_ack_play_ended", sequence: 3, .eventAck(.playEnded)),

      // Unacknowledged notifications.
      vector(
        "actuators_notification", sequence: 1,
        .actuators(
          ActuatorTrace(
            boardMs: 123_456, state: ActuatorState(buzzerHz: 2700, buzzerVolume: 200, leds: 0b01, motors: [255])))),
      vector(
        "actuators_all_off", sequence: 2,
        .actuators(ActuatorTrace(boardMs: 124_000, state: .off(motorCount: 2))),
        note: "the sequence of a notification only counts notifications"),

      // The worked examples of PROTOCOL.md §18, byte for byte.
      vector(
        "spec_18_1_ping_hi", sequence: 1, nonce: 0x1234_5678, .command(.ping(ascii("hi"))), note: "PROTOCOL.md §18.1"),
      vector(
        "spec_18_1_pong_hi", sequence: 1, nonce: 0x1234_5678, .reply(to: .ping, .pong(ascii("hi"))),
        note: "PROTOCOL.md §18.1"),
      vector(
        "spec_18_2_play_slot_0", sequence: 10, nonce: 0x5A17_C0DE,
        .command(.play(PlayRequest(token: 7, capMs: 0, source: .slot(0)))), note: "PROTOCOL.md §18.2 (payload)"),
      vector(
        "spec_18_2_nak_stale_nonce_to_lease", sequence: 41, nonce: 0x5A17_C0DE,
        .nak(to: MessageType.lease.rawValue, Nak(.staleNonce)), note: "PROTOCOL.md §18.2 and §15.5"),
      vector(
        "spec_18_2_ack_of_play_ended", sequence: 3, nonce: 0x5A17_C0DE, .eventAck(.playEnded),
        note: "PROTOCOL.md §18.2"),
    ]
  }

  /// The header flags each kind of message carries (from the flag definitions, not from the codec).
  static func flagsByte(kind: String) -> UInt8 {
    switch kind {
    case "reply", "event_ack": 0x01
    case "nak": 0x03
    case "notification": 0x04
    default: 0x00
    }
  }

  /// The JSON entry of one message vector.
  static func json(_ definition: MessageDefinition) -> JSONValue {
    let message = definition.message
    let kind = VectorJSON.kind(of: message)
    let typeCode = VectorJSON.typeCode(of: message)
    let flags = flagsByte(kind: kind)
    let payload = message.frame(sequence: definition.sequence, nonce: definition.nonce).payload
    let raw = ReferenceCodec.rawFrame(
      flags: flags, sequence: definition.sequence, type: typeCode, nonce: definition.nonce, payload: payload)
    let typeName = MessageType(rawValue: typeCode).flatMap { VectorNames.messageTypes.name($0) }
    var members = [
      JSONMember(key: "name", value: .string(definition.name)),
      JSONMember(key: "kind", value: .string(kind)),
      JSONMember(key: "type", value: typeName.map(JSONValue.string) ?? .null),
      JSONMember(key: "type_code", value: .int(typeCode)),
    ]
    if case .reply(_, let reply) = message {
      members.append(JSONMember(key: "reply", value: .string(VectorJSON.replyName(reply))))
    }
    if let note = definition.note { members.append(JSONMember(key: "note", value: .string(note))) }
    members += [
      JSONMember(
        key: "header",
        value: .object([
          "version": 1, "flags": .array(VectorNames.names(of: FrameFlags(rawValue: flags)).map(JSONValue.string)),
          "flags_byte": .int(flags), "sequence": .int(definition.sequence), "nonce": .int(definition.nonce),
          "length": .int(payload.count),
        ])),
      JSONMember(key: "fields", value: VectorJSON.fields(of: message)),
      JSONMember(key: "payload_hex", value: .string(hexString(payload))),
      JSONMember(key: "raw_hex", value: .string(hexString(raw))),
      JSONMember(key: "wire_hex", value: .string(hexString(ReferenceCodec.wire(raw)))),
    ]
    return .members(members)
  }

  /// messages.json.
  static func messagesDocument() -> JSONValue {
    .object([
      "description": "Protocol v1 messages: every command, reply kind, NAK, event, event ACK and notification.",
      "schema": "Protocol/vectors/README.md",
      "protocol_version": 1,
      "vectors": .array(messageDefinitions.map(json)),
    ])
  }

  // MARK: - malformed.json

  /// What the stream decoder is expected to produce for one delimited frame.
  enum ExpectedOutput: Sendable {
    /// A frame that passes every check, and the error its message decoding gives (nil: it decodes).
    case frame(Frame, MessageError?)
    /// A dropped frame.
    case dropped(FrameError)
  }

  /// One entry of malformed.json.
  struct MalformedDefinition: Sendable {
    let name: String
    let description: String
    let maxPayload: Int
    /// The frame before COBS when the case is a single frame, for testing a frame parser directly.
    let raw: [UInt8]?
    let wire: [UInt8]
    let expected: [ExpectedOutput]
  }

  /// The header values of the malformed samples.
  static let malformedSequence: UInt16 = 0x0102

  /// A valid PING frame's raw bytes, the base most malformed cases are derived from.
  static var goodPingRaw: [UInt8] {
    ReferenceCodec.rawFrame(
      flags: 0, sequence: malformedSequence, type: 0x02, nonce: boardNonce, payload: [0xCA, 0xFE])
  }

  /// The frame ``goodPingRaw`` decodes to.
  static var goodPingFrame: Frame {
    Frame(sequence: malformedSequence, type: 0x02, nonce: boardNonce, payload: [0xCA, 0xFE])
  }

  /// A second valid frame (the next PING), to show the decoder continues after a drop.
  static var nextPingFrame: Frame {
    Frame(sequence: malformedSequence + 1, type: 0x02, nonce: boardNonce, payload: [0x0B, 0xAD])
  }

  /// The raw bytes of ``nextPingFrame``.
  static var nextPingRaw: [UInt8] {
    ReferenceCodec.rawFrame(
      flags: 0, sequence: malformedSequence + 1, type: 0x02, nonce: boardNonce, payload: [0x0B, 0xAD])
  }

  /// A case that is one whole, correctly delimited frame.
  static func singleFrame(
    _ name: String, _ description: String, raw: [UInt8], maxPayload: Int = Frame.maxPayload, expect: ExpectedOutput
  ) -> MalformedDefinition {
    MalformedDefinition(
      name: name, description: description, maxPayload: maxPayload, raw: raw, wire: ReferenceCodec.wire(raw),
      expected: [expect])
  }

  /// A case whose frame is valid but whose message is not: the decoder delivers it, Message.decode fails.
  static func messageCase(
    _ name: String, _ description: String, flags: UInt8 = 0, type: UInt8, payload: [UInt8], error: MessageError
  ) -> MalformedDefinition {
    let raw = ReferenceCodec.rawFrame(
      flags: flags, sequence: malformedSequence, type: type, nonce: boardNonce, payload: payload)
    let frame = Frame(
      flags: FrameFlags(rawValue: flags), sequence: malformedSequence, type: type, nonce: boardNonce, payload: payload)
    return singleFrame(name, description, raw: raw, expect: .frame(frame, error))
  }

  /// A frame-level drop of a frame built with `version`, `flags` and a declared length.
  static func frameDrop(
    _ name: String, _ description: String, version: UInt8 = 1, flags: UInt8 = 0, declaredLength: Int? = nil,
    error: FrameError
  ) -> MalformedDefinition {
    let raw = ReferenceCodec.rawFrame(
      version: version, flags: flags, sequence: malformedSequence, type: 0x02, nonce: boardNonce,
      payload: [0xCA, 0xFE], declaredLength: declaredLength)
    return singleFrame(name, description, raw: raw, expect: .dropped(error))
  }

  /// A payload error of `kind` in `field` at `offset`, in a frame of type `type`.
  static func payloadError(
    _ type: UInt8, _ kind: PayloadError.Kind, _ field: StaticString, _ offset: Int
  ) -> MessageError {
    .payload(type: type, PayloadError(kind, field: field, offset: offset))
  }

  /// Every malformed input with its expected outcome.
  static var malformedDefinitions: [MalformedDefinition] {
    let good = goodPingRaw
    let goodCRC = ReferenceCodec.crc32c(good.dropLast(4))
    let le16 = ReferenceCodec.le16
    let le32 = ReferenceCodec.le32
    var flippedPayload = good
    flippedPayload[11] ^= 0x10
    var corruptLength = good
    corruptLength[9] = 0x03
    let tooLargePayload = [UInt8](repeating: 0, count: Frame.maxPayload + 1)
    let longestPayload = (1...128).map { UInt8($0) }
    let play = MessageType.play.rawValue
    let status =
      ReferenceCodec.le32(9000) + le32(0) + [0x00, 0x00] + [UInt8](repeating: 0, count: 8)
      + [0, 0, 0, 0, 1, 0] + [0, 0] + le32(0) + le32(0) + [UInt8](repeating: 0, count: 24)
    let info =
      [1, 1, 1, 1, 4, 2] + le32(boardNonce) + [3] + [0x41, 0x42, 0x07] + [UInt8](repeating: 0x01, count: 26)
      + [UInt8](repeating: 0, count: 12)

    return [
      // CRC.
      singleFrame(
        "bad_crc_stored_value", "the stored CRC's last byte has one bit flipped",
        raw: ReferenceCodec.rawFrame(
          flags: 0, sequence: malformedSequence, type: 0x02, nonce: boardNonce, payload: [0xCA, 0xFE],
          crcXor: 0x0100_0000),
        expect: .dropped(.crcMismatch(stated: goodCRC ^ 0x0100_0000, computed: goodCRC))),
      singleFrame(
        "bad_crc_payload_bit_flipped", "one payload bit flipped after the CRC was computed", raw: flippedPayload,
        expect: .dropped(.crcMismatch(stated: goodCRC, computed: ReferenceCodec.crc32c(flippedPayload.dropLast(4))))),
      singleFrame(
        "bad_crc_length_byte_corrupted", "a corrupted length byte is a CRC error, not a length error: CRC comes first",
        raw: corruptLength,
        expect: .dropped(.crcMismatch(stated: goodCRC, computed: ReferenceCodec.crc32c(corruptLength.dropLast(4))))),

      // Short frames and lengths.
      singleFrame(
        "too_short_14_bytes", "14 bytes: one less than a header and a CRC", raw: Array(good.prefix(14)),
        expect: .dropped(.tooShort(count: 14))),
      singleFrame(
        "too_short_empty_frame", "COBS block 0x01 decodes to no bytes at all", raw: [],
        expect: .dropped(.tooShort(count: 0))),
      frameDrop(
        "length_mismatch_declared_longer", "length says 3, the payload has 2 bytes; the CRC is valid",
        declaredLength: 3, error: .lengthMismatch(declared: 3, actual: 2)),
      frameDrop(
        "length_mismatch_declared_shorter", "length says 0, the payload has 2 bytes; the CRC is valid",
        declaredLength: 0, error: .lengthMismatch(declared: 0, actual: 2)),

      // Limits.
      MalformedDefinition(
        name: "overlong_then_good_frame",
        description:
          "with max_payload 128 a frame may take 144 COBS bytes (COBS.maxEncodedCount(11 + 128 + 4)); 145 non-zero "
          + "bytes "
          + "before a 0x00 are dropped as overlong, counted at the 0x00, and the next frame decodes",
        maxPayload: Frame.minimumMaxPayload, raw: nil,
        wire: [UInt8](repeating: 0x55, count: 145) + [0] + ReferenceCodec.wire(good),
        expected: [.dropped(.overlong(count: 145)), .frame(goodPingFrame, nil)]),
      singleFrame(
        "longest_frame_for_max_payload_128", "a 128-byte payload is exactly 144 COBS bytes: accepted",
        raw: ReferenceCodec.rawFrame(
          flags: 0, sequence: malformedSequence, type: 0x02, nonce: boardNonce, payload: longestPayload),
        maxPayload: Frame.minimumMaxPayload,
        expect: .frame(
          Frame(sequence: malformedSequence, type: 0x02, nonce: boardNonce, payload: longestPayload), nil)),
      singleFrame(
        "payload_too_large",
        "1025 zero bytes of payload fit the COBS buffer for max_payload 1024 but exceed the payload limit",
        raw: ReferenceCodec.rawFrame(
          flags: 0, sequence: malformedSequence, type: 0x02, nonce: boardNonce, payload: tooLargePayload),
        expect: .dropped(.payloadTooLarge(count: Frame.maxPayload + 1, limit: Frame.maxPayload))),

      // Header fields.
      frameDrop("unsupported_version_2", "version 2 with a valid CRC", version: 2, error: .unsupportedVersion(2)),
      frameDrop("unsupported_version_0", "version 0 with a valid CRC", version: 0, error: .unsupportedVersion(0)),
      frameDrop("reserved_flag_bit_3", "flag bit 3 is reserved", flags: 0x08, error: .invalidFlags(0x08)),
      frameDrop(
        "reserved_flag_bit_7_with_response", "flag bit 7 is reserved", flags: 0x81, error: .invalidFlags(0x81)),
      frameDrop(
        "nak_without_response", "nak (bit 1) requires response (bit 0)", flags: 0x02, error: .invalidFlags(0x02)),
      frameDrop(
        "notify_with_response", "a notification is never an answer", flags: 0x05, error: .invalidFlags(0x05)),

      // COBS.
      MalformedDefinition(
        name: "cobs_code_past_end", description: "code 0x05 promises 4 data bytes, the block ends after 2",
        maxPayload: Frame.maxPayload, raw: nil, wire: [0x05, 0x11, 0x22, 0x00],
        expected: [.dropped(.cobs(.truncated(offset: 3)))]),
      MalformedDefinition(
        name: "cobs_full_block_cut_short", description: "code 0xFF promises 254 data bytes, the block ends after 10",
        maxPayload: Frame.maxPayload, raw: nil, wire: [0xFF] + [UInt8](repeating: 0x01, count: 10) + [0x00],
        expected: [.dropped(.cobs(.truncated(offset: 11)))]),

      // Unknown types: valid frames, unreadable messages.
      messageCase(
        "unknown_type_command_space", "type 0x7E is in the command range but names no command", type: 0x7E, payload: [],
        error: .unknownType(0x7E)),
      messageCase(
        "unknown_type_event_space", "type 0xBE is in the event range but names no event", type: 0xBE, payload: [0x01],
        error: .unknownType(0xBE)),
      messageCase(
        "unknown_type_answer", "an ACK (response flag) of a type no command has", flags: 0x01, type: 0x55, payload: [],
        error: .unknownType(0x55)),

      // Payload errors: the field's spec name and its byte offset in the payload.
      messageCase(
        "play_truncated_in_cap_ms", "PLAY ends after token and one byte of cap_ms", type: play,
        payload: le32(7) + [0x50],
        error: payloadError(play, .truncated, "cap_ms", 4)),
      messageCase(
        "play_inline_steps_truncated", "an inline pattern announces 2 steps and carries 1", type: play,
        payload: le32(7) + le16(1000) + [0, 1] + [0, 0] + le16(0) + le16(2) + le16(100) + le16(0) + [0, 0, 0],
        error: payloadError(play, .truncated, "pattern.steps", 14)),
      messageCase(
        "stop_trailing_bytes", "STOP with a fifth byte", type: MessageType.stop.rawValue, payload: le32(7) + [0],
        error: payloadError(MessageType.stop.rawValue, .trailingBytes, "end", 4)),
      messageCase(
        "get_status_trailing_byte", "GET_STATUS has no payload", type: MessageType.getStatus.rawValue, payload: [0],
        error: payloadError(MessageType.getStatus.rawValue, .trailingBytes, "end", 0)),
      messageCase(
        "lease_below_minimum", "lease_ms 50 < 100", type: MessageType.lease.rawValue, payload: le16(50),
        error: payloadError(MessageType.lease.rawValue, .invalidValue, "lease_ms", 0)),
      messageCase(
        "lease_above_maximum", "lease_ms 10001 > 10000", type: MessageType.lease.rawValue, payload: le16(10_001),
        error: payloadError(MessageType.lease.rawValue, .invalidValue, "lease_ms", 0)),
      messageCase(
        "play_undefined_option_bit", "option bit 3 is not defined", type: play,
        payload: le32(7) + le16(1000) + [0x08, 0, 2], error: payloadError(play, .invalidValue, "options", 6)),
      messageCase(
        "play_unknown_source", "source 2 is neither slot (0) nor inline (1)", type: play,
        payload: le32(7) + le16(1000) + [0, 2, 2], error: payloadError(play, .invalidValue, "source", 7)),
      messageCase(
        "play_inline_zero_duration_step", "a step of 0 ms", type: play,
        payload: le32(7) + le16(1000) + [0, 1] + [0, 0] + le16(0) + le16(1) + le16(0) + le16(0) + [0, 255, 0],
        error: payloadError(play, .invalidValue, "step.duration_ms", 14)),
      messageCase(
        "set_indicator_unknown_mode", "mode 3", type: MessageType.setIndicator.rawValue,
        payload: [0, 3] + le16(0) + le16(0),
        error: payloadError(MessageType.setIndicator.rawValue, .invalidValue, "mode", 1)),
      messageCase(
        "set_indicator_blink_zero_on", "blink needs on_ms >= 1", type: MessageType.setIndicator.rawValue,
        payload: [0, 2] + le16(0) + le16(500),
        error: payloadError(MessageType.setIndicator.rawValue, .invalidValue, "on_ms", 2)),
      messageCase(
        "set_indicator_blink_zero_off", "blink needs off_ms >= 1", type: MessageType.setIndicator.rawValue,
        payload: [0, 2] + le16(500) + le16(0),
        error: payloadError(MessageType.setIndicator.rawValue, .invalidValue, "off_ms", 4)),
      messageCase(
        "reset_wrong_magic", "magic must be \"RST!\"", type: MessageType.reset.rawValue, payload: Array("RST?".utf8),
        error: payloadError(MessageType.reset.rawValue, .invalidValue, "magic", 0)),
      messageCase(
        "hello_zero_window", "window 0", type: MessageType.hello.rawValue, payload: [1, 1] + le16(1024) + [0, 0],
        error: payloadError(MessageType.hello.rawValue, .invalidValue, "window", 4)),
      messageCase(
        "hello_max_payload_below_128", "every implementation accepts 128", type: MessageType.hello.rawValue,
        payload: [1, 1] + le16(127) + [8, 0],
        error: payloadError(MessageType.hello.rawValue, .invalidValue, "max_payload", 2)),
      messageCase(
        "hello_reserved_option_bit", "options bit 1 is reserved", type: MessageType.hello.rawValue,
        payload: [1, 1] + le16(1024) + [8, 0x02],
        error: payloadError(MessageType.hello.rawValue, .invalidValue, "options", 5)),
      messageCase(
        "hello_min_above_max", "min_version 2 > max_version 1", type: MessageType.hello.rawValue,
        payload: [2, 1] + le16(1024) + [8, 0],
        error: payloadError(MessageType.hello.rawValue, .invalidValue, "max_version", 1)),
      messageCase(
        "table_data_without_data", "TABLE_DATA carries at least one byte", type: MessageType.tableData.rawValue,
        payload: le32(0), error: payloadError(MessageType.tableData.rawValue, .truncated, "data", 4)),
      messageCase(
        "table_read_unknown_area", "area 2", type: MessageType.tableRead.rawValue, payload: [2] + le32(0) + le16(16),
        error: payloadError(MessageType.tableRead.rawValue, .invalidValue, "area", 0)),
      messageCase(
        "boot_unknown_reason", "reason 9", type: MessageType.boot.rawValue, payload: [9, 0],
        error: payloadError(MessageType.boot.rawValue, .invalidValue, "reason", 0)),
      messageCase(
        "play_ended_unknown_reason", "reason 6", type: MessageType.playEnded.rawValue,
        payload: le32(7) + [6] + le32(100),
        error: payloadError(MessageType.playEnded.rawValue, .invalidValue, "reason", 4)),
      messageCase(
        "button_truncated_in_held_ms", "held_ms cut after one byte", type: MessageType.button.rawValue,
        payload: [0, 0, 0x10], error: payloadError(MessageType.button.rawValue, .truncated, "held_ms", 2)),
      messageCase(
        "info_version_zero", "INFO's version is always the negotiated one, never 0 (PROTOCOL.md §10.4)", flags: 0x01,
        type: MessageType.getInfo.rawValue, payload: infoPayload(sessionVersion: 0),
        error: payloadError(MessageType.getInfo.rawValue, .invalidValue, "version", 2)),
      messageCase(
        "info_version_above_max", "version 2 from a board whose max_version is 1", flags: 0x01,
        type: MessageType.hello.rawValue, payload: infoPayload(sessionVersion: 2),
        error: payloadError(MessageType.hello.rawValue, .invalidValue, "version", 2)),
      messageCase(
        "info_min_version_above_max_version",
        "min_version 2, max_version 1: no version lies in the range, so INFO is unreadable at its version (§10.4)",
        flags: 0x01, type: MessageType.hello.rawValue,
        payload: infoPayload(minVersion: 2, maxVersion: 1, sessionVersion: 1, layoutVersion: 1),
        error: payloadError(MessageType.hello.rawValue, .invalidValue, "version", 2)),
      messageCase(
        "info_version_3",
        "version 3 from a board speaking 1..3 (here in version 2's layout): negotiation never goes above the "
          + "host's max_version, and a v1.1 reader cannot know version 3's layout (§10.4)",
        flags: 0x01, type: MessageType.hello.rawValue,
        payload: infoPayload(minVersion: 1, maxVersion: 3, sessionVersion: 3, layoutVersion: 2),
        error: payloadError(MessageType.hello.rawValue, .invalidValue, "version", 2)),
      messageCase(
        "info_versions_0_to_0", "min_version, max_version and version all 0: version 0 is never negotiated (§10.4)",
        flags: 0x01, type: MessageType.getInfo.rawValue,
        payload: infoPayload(minVersion: 0, maxVersion: 0, sessionVersion: 0, layoutVersion: 1),
        error: payloadError(MessageType.getInfo.rawValue, .invalidValue, "version", 2)),
      messageCase(
        "event_ack_with_payload",
        "an event's acknowledgement has no payload: a board does not take this one as an acknowledgement (§5.5)",
        flags: 0x01,
        type: MessageType.button.rawValue, payload: [0],
        error: payloadError(MessageType.button.rawValue, .trailingBytes, "end", 0)),
      messageCase(
        "notify_flag_on_command", "only ACTUATORS travels as a notification", flags: 0x04,
        type: MessageType.ping.rawValue, payload: [],
        error: payloadError(MessageType.ping.rawValue, .invalidValue, "flags", 0)),
      messageCase(
        "actuators_without_notify_flag", "ACTUATORS must carry the notify flag", type: MessageType.actuators.rawValue,
        payload: le32(1) + le16(0) + [0, 0, 0],
        error: payloadError(MessageType.actuators.rawValue, .invalidValue, "flags", 0)),
      messageCase(
        "actuators_too_many_motors", "motor_count 9 > 8", flags: 0x04, type: MessageType.actuators.rawValue,
        payload: le32(1) + le16(0) + [0, 0, 9] + [UInt8](repeating: 0, count: 9),
        error: payloadError(MessageType.actuators.rawValue, .invalidValue, "motor_count", 8)),
      messageCase(
        "nak_payload_truncated", "a NAK's payload is code u8 and detail u32", flags: 0x03, type: play,
        payload: [5, 0, 0],
        error: payloadError(play, .truncated, "detail", 1)),
      messageCase(
        "status_source_without_token", "STATUS: source 0 (slot) while token is 0 (nothing plays)", flags: 0x01,
        type: MessageType.getStatus.rawValue, payload: status,
        error: payloadError(MessageType.getStatus.rawValue, .invalidValue, "source", 8)),
      messageCase(
        "info_serial_not_printable", "INFO: serial \"AB\\u0007\"; the offset is where the serial starts", flags: 0x01,
        type: MessageType.getInfo.rawValue, payload: info,
        error: payloadError(MessageType.getInfo.rawValue, .invalidValue, "serial", 11)),
      messageCase(
        "playing_reply_truncated", "PLAYING's cap_ms cut after one byte", flags: 0x01, type: play, payload: [0x50],
        error: payloadError(play, .truncated, "cap_ms", 0)),

      // Streams.
      MalformedDefinition(
        name: "garbage_between_frames",
        description: "a frame, four bytes of noise and a 0x00, then a frame: the noise is dropped, both frames decode",
        maxPayload: Frame.maxPayload, raw: nil,
        wire: ReferenceCodec.wire(good) + [0xDE, 0xAD, 0xBE, 0xEF, 0x00] + ReferenceCodec.wire(nextPingRaw),
        expected: [
          .frame(goodPingFrame, nil), .dropped(.cobs(.truncated(offset: 4))), .frame(nextPingFrame, nil),
        ]),
      MalformedDefinition(
        name: "noise_with_zeros_then_frame",
        description: "line noise that contains 0x00 bytes yields one drop per delimited piece, then the frame",
        maxPayload: Frame.maxPayload, raw: nil, wire: [0x13, 0x00, 0x37, 0x00] + ReferenceCodec.wire(good),
        expected: [
          .dropped(.cobs(.truncated(offset: 1))), .dropped(.cobs(.truncated(offset: 1))), .frame(goodPingFrame, nil),
        ]),
      MalformedDefinition(
        name: "idle_delimiters_ignored", description: "0x00 0x00 is idle fill: no output, no counter moves",
        maxPayload: Frame.maxPayload, raw: nil, wire: [0, 0, 0] + ReferenceCodec.wire(good) + [0, 0],
        expected: [.frame(goodPingFrame, nil)]),
      MalformedDefinition(
        name: "frame_without_delimiter_waits", description: "nothing is delivered before the frame's 0x00 arrives",
        maxPayload: Frame.maxPayload, raw: nil, wire: ReferenceCodec.cobs(good), expected: []),
    ]
  }

  /// The decoder counters a list of outputs moves, by the documented rule: a frame counts in frames_ok, a CRC
  /// mismatch in crc_errors, an over-long frame in overlong, every other drop in framing_errors.
  static func counters(for outputs: [ExpectedOutput]) -> JSONValue {
    var frames = 0
    var crc = 0
    var framing = 0
    var overlong = 0
    for output in outputs {
      switch output {
      case .frame: frames += 1
      case .dropped(.crcMismatch): crc += 1
      case .dropped(.overlong): overlong += 1
      case .dropped: framing += 1
      }
    }
    return .object([
      "frames_ok": .int(frames), "crc_errors": .int(crc), "framing_errors": .int(framing), "overlong": .int(overlong),
    ])
  }

  /// The JSON of one expected output.
  static func json(_ output: ExpectedOutput) -> JSONValue {
    switch output {
    case .frame(let frame, let error):
      .object(["frame": VectorJSON.json(frame), "message_error": error.map(VectorJSON.json) ?? .null])
    case .dropped(let error): .object(["dropped": VectorJSON.json(error)])
    }
  }

  /// malformed.json.
  static func malformedDocument() -> JSONValue {
    .object([
      "description": "Inputs a receiver must reject or survive, with the exact outcome and the counters that move.",
      "schema": "Protocol/vectors/README.md",
      "cases": .array(
        malformedDefinitions.map { definition in
          var members = [
            JSONMember(key: "name", value: .string(definition.name)),
            JSONMember(key: "description", value: .string(definition.description)),
            JSONMember(key: "max_payload", value: .int(definition.maxPayload)),
          ]
          if let raw = definition.raw { members.append(JSONMember(key: "raw_hex", value: .string(hexString(raw)))) }
          members += [
            JSONMember(key: "wire_hex", value: .string(hexString(definition.wire))),
            JSONMember(key: "outputs", value: .array(definition.expected.map(json))),
            JSONMember(key: "counters", value: counters(for: definition.expected)),
          ]
          return .members(members)
        }),
    ])
  }

  // MARK: - patterns.json

  /// patterns.json: pattern encodings, a full table, and invalid patterns and tables.
  static func patternsDocument() -> JSONValue {
    let le16 = ReferenceCodec.le16
    let table = sampleTableBytes
    let patterns: [(name: String, pattern: Pattern, total: JSONValue, loop: Int, note: String)] = [
      ("single_step", singleStepPattern, 250, 250, "repeat 0 plays the steps once"),
      ("looped_repeat_3_from_step_1", loopedPattern, 1500, 350, "100+200+150, then 3 x (200+150)"),
      ("repeat_forever", foreverPattern, .null, 1000, "repeat 255 loops until the cap; no natural length"),
    ]
    let invalidPatterns: [(name: String, bytes: [UInt8], error: PayloadError)] = [
      ("zero_steps", [0, 0] + le16(0) + le16(0), PayloadError(.invalidValue, field: "pattern.step_count", offset: 4)),
      (
        "loop_start_past_last_step", [0, 1] + le16(2) + le16(2) + referenceSteps(2),
        PayloadError(.invalidValue, field: "pattern.loop_start", offset: 2)
      ),
      (
        "reserved_flags", [1, 0] + le16(0) + le16(1) + referenceSteps(1),
        PayloadError(.invalidValue, field: "pattern.flags", offset: 0)
      ),
      (
        "zero_duration_second_step", [0, 0] + le16(0) + le16(2) + referenceSteps(1) + le16(0) + le16(0) + [0, 0, 0],
        PayloadError(.invalidValue, field: "step.duration_ms", offset: 13)
      ),
      (
        "steps_truncated", [0, 0] + le16(0) + le16(2) + referenceSteps(1),
        PayloadError(.truncated, field: "pattern.steps", offset: 6)
      ),
      (
        "trailing_byte", [0, 0] + le16(0) + le16(1) + referenceSteps(1) + [0],
        PayloadError(.trailingBytes, field: "pattern.steps", offset: 13)
      ),
      ("header_truncated", [0, 0, 0], PayloadError(.truncated, field: "pattern.loop_start", offset: 2)),
    ]
    return .object([
      "description": "Pattern encodings, a pattern table with its CRC, and invalid patterns and tables.",
      "schema": "Protocol/vectors/README.md",
      "patterns": .array(
        patterns.map {
          .object([
            "name": .string($0.name), "note": .string($0.note), "pattern": VectorJSON.json($0.pattern),
            "hex": .string(hexString(referenceBytes($0.pattern))), "total_duration_ms": $0.total,
            "loop_duration_ms": .int($0.loop),
          ])
        }),
      "invalid_patterns": .array(
        invalidPatterns.map {
          .object(["name": .string($0.name), "hex": .string(hexString($0.bytes)), "error": VectorJSON.json($0.error)])
        }),
      "tables": [
        .object([
          "name": "three_slots_one_empty",
          "table": VectorJSON.json(sampleTable),
          "header": .object([
            "magic": "CAPT", "format": 1, "slot_count": 3, "version": 7, "size": .int(table.count),
          ]),
          "directory": [
            .object(["offset": 88, "length": 20, "name": "ring"]),
            .object(["offset": 0, "length": 0, "name": ""]),
            .object(["offset": 108, "length": 27, "name": "vibrate"]),
          ],
          "size": .int(table.count),
          "crc": .int(sampleTableCRC),
          "hex": .string(hexString(table)),
        ]),
        .object([
          "name": "spec_example_two_slots",
          "note": "PROTOCOL.md §12.2",
          "table": VectorJSON.json(specExampleTable),
          "header": .object(["magic": "CAPT", "format": 1, "slot_count": 2, "version": 7, "size": 88]),
          "directory": [
            .object(["offset": 64, "length": 20, "name": "ring"]),
            .object(["offset": 0, "length": 0, "name": ""]),
          ],
          "size": 88,
          "crc": .int(ReferenceCodec.crc32c(specExampleBytes.dropLast(4))),
          "hex": .string(hexString(specExampleBytes)),
        ]),
      ],
      "invalid_tables": .array(
        invalidTables.map {
          .object([
            "name": .string($0.name), "description": .string($0.description), "hex": .string(hexString($0.bytes)),
            "error": VectorJSON.json($0.error),
          ])
        }),
    ])
  }

  /// ``specExampleTable`` laid out by the reference writer.
  static var specExampleBytes: [UInt8] {
    ReferenceCodec.table(
      version: 7, slots: [("ring", referenceBytes(specExampleTable.slots[0]!.pattern)), nil])
  }

  /// `count` valid 7-byte steps (100 ms, silent) from the reference writer.
  static func referenceSteps(_ count: Int) -> [UInt8] {
    Array(
      ReferenceCodec.pattern(
        repeat: 0, loopStart: 0, steps: Array(repeating: ReferenceCodec.Step(durationMs: 100), count: count)
      ).dropFirst(Pattern.headerSize))
  }

  /// The sample table with `change` applied and, when `reseal`, its CRC recomputed so only the change is wrong.
  static func damagedTable(reseal: Bool = true, _ change: (inout [UInt8]) -> Void) -> [UInt8] {
    var bytes = sampleTableBytes
    change(&bytes)
    return reseal ? ReferenceCodec.resealed(bytes) : bytes
  }

  /// Sets the little-endian u32 at `offset`.
  static func put32(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
    bytes.replaceSubrange(offset..<offset + 4, with: ReferenceCodec.le32(value))
  }

  /// Sets the little-endian u16 at `offset`.
  static func put16(_ value: UInt16, at offset: Int, in bytes: inout [UInt8]) {
    bytes.replaceSubrange(offset..<offset + 2, with: ReferenceCodec.le16(value))
  }

  /// Invalid tables derived from the sample (directory entries at 16, 40 and 64; patterns at 88 and 108; CRC at 135).
  static var invalidTables: [(name: String, description: String, bytes: [UInt8], error: PayloadError)] {
    let crcAt = sampleTableBytes.count - 4
    return [
      (
        "bad_magic", "\"XAPT\" (trailer resealed: only the magic is wrong)", damagedTable { $0[0] = UInt8(ascii: "X") },
        PayloadError(.invalidValue, field: "magic", offset: 0)
      ),
      ("bad_format", "format 2", damagedTable { $0[4] = 2 }, PayloadError(.invalidValue, field: "format", offset: 4)),
      (
        "zero_slots", "slot_count 0", damagedTable { $0[5] = 0 },
        PayloadError(.invalidValue, field: "slot_count", offset: 5)
      ),
      (
        "too_many_slots", "slot_count 65 > 64", damagedTable { $0[5] = 65 },
        PayloadError(.invalidValue, field: "slot_count", offset: 5)
      ),
      (
        "reserved_not_zero", "reserved 1", damagedTable { $0[6] = 1 },
        PayloadError(.invalidValue, field: "reserved", offset: 6)
      ),
      (
        "size_field_mismatch", "size says one byte more than the table has",
        damagedTable { put32(UInt32(sampleTableBytes.count + 1), at: 12, in: &$0) },
        PayloadError(.invalidValue, field: "size", offset: 12)
      ),
      (
        "truncated_in_header", "10 bytes: magic and format right, cut in version", Array(sampleTableBytes.prefix(10)),
        PayloadError(.truncated, field: "version", offset: 8)
      ),
      (
        "truncated_in_magic", "3 bytes", Array(sampleTableBytes.prefix(3)),
        PayloadError(.truncated, field: "magic", offset: 0)
      ),
      (
        "truncated_with_bad_format", "5 bytes whose format is 2: the format check comes first",
        Array(sampleTableBytes.prefix(4)) + [2], PayloadError(.invalidValue, field: "format", offset: 4)
      ),
      (
        "bad_crc", "the stored CRC's last byte inverted", damagedTable(reseal: false) { $0[$0.count - 1] ^= 0xFF },
        PayloadError(.invalidValue, field: "crc", offset: crcAt)
      ),
      (
        "overlapping_entries", "slot 2 starts at 100, inside slot 0's pattern (88 ..< 108)",
        damagedTable { put32(100, at: 64, in: &$0) }, PayloadError(.invalidValue, field: "entry.offset", offset: 64)
      ),
      (
        "entry_past_crc", "slot 2's length 28 runs into the CRC", damagedTable { put16(28, at: 68, in: &$0) },
        PayloadError(.invalidValue, field: "entry.offset", offset: 64)
      ),
      (
        "entry_inside_directory", "slot 0 starts at 80, inside the directory",
        damagedTable { put32(80, at: 16, in: &$0) },
        PayloadError(.invalidValue, field: "entry.offset", offset: 16)
      ),
      (
        "empty_slot_with_offset", "slot 1 has length 0 but offset 200", damagedTable { put32(200, at: 40, in: &$0) },
        PayloadError(.invalidValue, field: "entry.offset", offset: 40)
      ),
      (
        "entry_reserved_not_zero", "slot 0's reserved u16 is 1", damagedTable { put16(1, at: 22, in: &$0) },
        PayloadError(.invalidValue, field: "entry.reserved", offset: 22)
      ),
      (
        "slot_name_not_printable", "slot 0's name starts with 0x01", damagedTable { $0[24] = 0x01 },
        PayloadError(.invalidValue, field: "entry.name", offset: 24)
      ),
      (
        "pattern_error_inside_slot", "slot 2's first step lasts 0 ms", damagedTable { put16(0, at: 114, in: &$0) },
        PayloadError(.invalidValue, field: "step.duration_ms", offset: 114)
      ),
      (
        "entry_longer_than_pattern", "slot 0's length 21 leaves a byte after its pattern",
        damagedTable { put16(21, at: 20, in: &$0) }, PayloadError(.trailingBytes, field: "entry.length", offset: 108)
      ),
      (
        "entry_shorter_than_pattern", "slot 2's length 26 cuts its last step",
        damagedTable { put16(26, at: 68, in: &$0) },
        PayloadError(.truncated, field: "pattern.steps", offset: 114)
      ),
    ]
  }

  // MARK: - crc-cobs.json

  /// crc-cobs.json: CRC-32C values and COBS encodings.
  static func crcCOBSDocument() -> JSONValue {
    let crcInputs: [(name: String, bytes: [UInt8], note: String?)] = [
      ("check_123456789", ascii("123456789"), "the catalogue check value, 0xE3069283"),
      ("empty", [], nil),
      ("single_00", [0x00], nil),
      ("single_ff", [0xFF], nil),
      ("single_a", ascii("a"), nil),
      ("rfc3720_32_zeros", [UInt8](repeating: 0, count: 32), "RFC 3720 B.4: 0x8A9136AA"),
      ("rfc3720_32_ones", [UInt8](repeating: 0xFF, count: 32), "RFC 3720 B.4: 0x62A8AB43"),
      ("rfc3720_32_incrementing", (0..<32).map { UInt8($0) }, "RFC 3720 B.4: 0x46DD794E"),
      ("rfc3720_32_decrementing", (0..<32).reversed().map { UInt8($0) }, "RFC 3720 B.4: 0x113FDB5C"),
      ("pattern_1024", (0..<1024).map { UInt8($0 & 0xFF) }, "byte i is i mod 256"),
      (
        "table_with_own_crc", sampleTableBytes,
        "any bytes followed by their own CRC-32C (LE) give the constant 0x48674BC7 (PROTOCOL.md §3.3, §12.4)"
      ),
    ]
    let run = { (count: Int) in (0..<count).map { UInt8($0 % 255 + 1) } }
    let cobsInputs: [(name: String, bytes: [UInt8], alternative: [UInt8]?)] = [
      ("empty", [], nil),
      ("single_zero", [0x00], nil),
      ("two_zeros", [0x00, 0x00], nil),
      ("zero_between", [0x00, 0x11, 0x00], nil),
      ("zero_inside", [0x11, 0x22, 0x00, 0x33], nil),
      ("no_zero", [0x11, 0x22, 0x33, 0x44], nil),
      ("trailing_zero", [0x11, 0x22, 0x33, 0x00], nil),
      ("trailing_zeros", [0x11, 0x00, 0x00, 0x00], nil),
      ("all_zeros_8", [UInt8](repeating: 0, count: 8), nil),
      ("run_253", run(253), nil),
      ("run_254", run(254), [0xFF] + run(254)),
      ("run_255", run(255), nil),
      ("run_508", run(508), nil),
      ("zero_then_run_254", [0x00] + run(254), nil),
      ("run_254_then_zero", run(254) + [0x00], nil),
      ("run_254_zero_run_254", run(254) + [0x00] + run(254), nil),
    ]
    return .object([
      "description": "CRC-32C values and COBS encodings.",
      "schema": "Protocol/vectors/README.md",
      "crc32c_parameters": .object([
        "width": 32, "poly": .int(0x1EDC_6F41), "poly_reflected": .int(0x82F6_3B78), "init": .int(0xFFFF_FFFF),
        "refin": true, "refout": true, "xorout": .int(0xFFFF_FFFF), "check": .int(0xE306_9283),
        "residue_of_data_and_crc": .int(0x4867_4BC7),
      ]),
      "crc32c": .array(
        crcInputs.map { input in
          let crc = ReferenceCodec.crc32c(input.bytes)
          var members = [
            JSONMember(key: "name", value: .string(input.name)),
            JSONMember(key: "input_hex", value: .string(hexString(input.bytes))),
            JSONMember(key: "crc", value: .int(crc)),
            JSONMember(key: "crc_le_hex", value: .string(hexString(ReferenceCodec.le32(crc)))),
          ]
          if let note = input.note { members.insert(JSONMember(key: "note", value: .string(note)), at: 1) }
          return .members(members)
        }),
      "cobs": .array(
        cobsInputs.map { input in
          var members = [
            JSONMember(key: "name", value: .string(input.name)),
            JSONMember(key: "raw_hex", value: .string(hexString(input.bytes))),
            JSONMember(key: "encoded_hex", value: .string(hexString(ReferenceCodec.cobs(input.bytes)))),
            JSONMember(key: "max_encoded_count", value: .int(input.bytes.count + input.bytes.count / 254 + 1)),
          ]
          if let alternative = input.alternative {
            members.append(JSONMember(key: "also_decodes_from_hex", value: .array([.string(hexString(alternative))])))
          }
          return .members(members)
        }),
    ])
  }
}
