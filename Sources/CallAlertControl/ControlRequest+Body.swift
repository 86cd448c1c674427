import CallAlertText

extension ControlRequest {
  /// Parses a request body whose type the caller already knows (an HTTP route: `POST /v1/calls` is a `call`):
  /// the same fields and errors as a control line of that `type`, which the body may leave out.
  ///
  /// - Parameters:
  ///   - bytes: The body, all of it.
  ///   - type: One of ``fields``' keys.
  ///   - source: Names the input in errors, e.g. `body`; the body's lines count from 1.
  /// - Throws: ``InputError`` at `source:line:column` with the field, as ``parse(bytes:source:lineNumber:)``.
  public static func parse(body bytes: [UInt8], type: String, source: String) throws(InputError) -> ControlRequest {
    try ControlLineReader(bytes: bytes, source: source, lineNumber: 1).request(impliedType: type)
  }

  /// Parses a message that may be one of a few `types` only, and is `defaultType` when it leaves `type` out (an
  /// MQTT call topic: a call, a hangup or an answer; a bare `{"id":"c1"}` is a call).
  ///
  /// - Throws: ``InputError`` at `source:1:column` with the field; a type outside `types` is refused naming them.
  public static func parse(
    message bytes: [UInt8], types: [String], defaultType: String, source: String
  ) throws(InputError) -> ControlRequest {
    try ControlLineReader(bytes: bytes, source: source, lineNumber: 1).request(types: types, defaultType: defaultType)
  }
}
