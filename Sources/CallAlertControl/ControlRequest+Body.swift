import CallAlertInputs

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
}
