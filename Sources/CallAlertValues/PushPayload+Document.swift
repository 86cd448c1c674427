import CallAlertText

extension PushPayload {
  /// A push payload read once as JSON, with where it came from: what a `push` control request carries, and
  /// what ``PushPayload/read(_:rules:receivedAt:)`` turns into a ``PushNotification`` without parsing again.
  ///
  /// A payload comes in one of two forms on the wire: a JSON object inside the control line (its errors are
  /// located in that line), or the text of a file as a JSON string (`callalert notify push`; its errors are
  /// located in the file).
  public struct Document: Equatable, Sendable {
    /// How the payload travels in a `push` request.
    public enum Form: Equatable, Sendable {
      /// A JSON object inside the control line: `"payload":{...}`.
      case object
      /// A payload file's text as a JSON string: `"payload":"{...}"`, with the file's name in `file` (nil
      /// when the request names none: errors are then located in `push`).
      case text(file: String?)
    }

    /// The payload, parsed.
    package let root: JSONValue
    /// The bytes `root`'s offsets point into: the control line (form `object`) or the payload's own text.
    package let bytes: [UInt8]
    /// Where `bytes` starts, for error locations.
    package let base: Origin
    /// How the payload travels.
    public let form: Form

    package init(root: JSONValue, bytes: [UInt8], base: Origin, form: Form) {
      self.root = root
      self.bytes = bytes
      self.base = base
      self.form = form
    }

    /// Parses a payload's bytes, all of them (a file's text, or what `callalert notify push` read); `form`
    /// is how it will travel, by default as text from the file `origin` names.
    ///
    /// - Throws: ``InputError`` at `origin`'s `source:line:column` of the offending byte: JSON syntax, or a
    ///   top level that is not an object.
    public static func parse(_ bytes: [UInt8], origin: Origin, form: Form? = nil) throws(InputError) -> Document {
      let root: JSONValue
      do {
        root = try JSONParser.parse(bytes)
      } catch {
        throw InputError(
          location: origin.location(of: error.offset, in: bytes), message: "JSON syntax error: \(error.message)")
      }
      guard root.members != nil else {
        throw InputError(
          location: origin.location(of: root.start, in: bytes),
          message: "a push payload must be a JSON object, not \(root.kindDescription)")
      }
      return Document(root: root, bytes: bytes, base: origin, form: form ?? .text(file: origin.source))
    }

    /// The payload's own bytes, exactly as they arrived.
    public var payload: [UInt8] { Array(bytes[root.start..<root.end]) }

    /// Where the payload's first byte is.
    public var origin: Origin {
      let (line, column) = TextPosition.of(root.start, in: bytes)
      return Origin(
        source: base.source, line: base.line + line - 1, column: line == 1 ? base.column + column - 1 : column)
    }

    /// Two documents are equal when they carry the same payload from the same place in the same form.
    public static func == (lhs: Document, rhs: Document) -> Bool {
      lhs.payload == rhs.payload && lhs.origin == rhs.origin && lhs.form == rhs.form
    }
  }
}
