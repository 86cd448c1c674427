/// A JSON value read by ``JSONParser``, with the byte offsets it came from so that errors can point at it.
///
/// Numbers keep their text: `1`, `1.0` and `1e3` stay as written, and a call id `12345` reads back as
/// "12345" without a detour through floating point.
package struct JSONValue: Sendable {
  /// What the value is.
  package enum Kind {
    case null
    case bool(Bool)
    /// The number as written.
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in the order written; duplicate keys are kept (lookups take the last, as most readers do).
    case object([JSONMember])
  }

  /// What the value is.
  package var kind: Kind
  /// The offset of the value's first byte in the parsed bytes.
  package var start: Int
  /// The offset one past the value's last byte.
  package var end: Int

  /// The members of an object, or nil.
  package var members: [JSONMember]? {
    if case .object(let members) = kind { return members }
    return nil
  }

  /// The elements of an array, or nil.
  package var elements: [JSONValue]? {
    if case .array(let elements) = kind { return elements }
    return nil
  }

  /// The texts of an array whose elements are all strings, or nil (for an array with anything else in it too).
  package var strings: [String]? {
    guard let elements else { return nil }
    var texts: [String] = []
    for element in elements {
      guard let text = element.string else { return nil }
      texts.append(text)
    }
    return texts
  }

  /// The text of a string, or nil.
  package var string: String? {
    if case .string(let text) = kind { return text }
    return nil
  }

  /// The value of a boolean, or nil.
  package var bool: Bool? {
    if case .bool(let value) = kind { return value }
    return nil
  }

  /// A number written as a plain integer (`12`, `-3`) that fits an `Int`, or nil: `1.0`, `1e3` and
  /// out-of-range numbers are nil rather than rounded, so a reader never takes a value it did not see.
  package var integer: Int? {
    if case .number(let text) = kind { return Int(text) }
    return nil
  }

  /// The member `key` of an object (the last one when repeated), or nil.
  package subscript(key: String) -> JSONValue? {
    members?.last { $0.key == key }?.value
  }

  /// The value at `path`, or nil when any step is missing or of the wrong kind.
  package func value(at path: JSONPath) -> JSONValue? {
    var current = self
    for component in path.components {
      switch component {
      case .key(let key):
        guard let next = current[key] else { return nil }
        current = next
      case .index(let index):
        guard let elements = current.elements, index < elements.count else { return nil }
        current = elements[index]
      }
    }
    return current
  }

  /// Whether the value is JSON's `null`.
  package var isNull: Bool {
    if case .null = kind { return true }
    return false
  }

  /// A scalar as text: a string as is, a number as written, `true`/`false`; nil for null, arrays, objects.
  package var scalarText: String? {
    switch kind {
    case .string(let text): text
    case .number(let text): text
    case .bool(let value): value ? "true" : "false"
    case .null, .array, .object: nil
    }
  }

  /// A short name of the value's kind for messages: "a string", "a number", "an object"...
  package var kindDescription: String {
    switch kind {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }

  /// The value as written in messages: strings quoted, numbers and literals as is, containers by kind.
  /// Long values are cut to an excerpt (``DisplayText/excerptLimit`` characters), so a huge value is not
  /// echoed whole.
  package var quoted: String {
    switch kind {
    case .string(let text):
      guard let prefix = DisplayText.prefix(of: text) else { return JSONText.quoted(text) }
      return JSONText.quoted(prefix) + "… (\(text.utf8.count) bytes)"
    case .number(let text): return DisplayText.excerpt(text)
    case .bool(let value): return value ? "true" : "false"
    case .null: return "null"
    case .array, .object: return kindDescription
    }
  }
}

/// One `"key": value` of a JSON object.
package struct JSONMember: Sendable {
  /// The key.
  package var key: String
  /// The offset of the key's opening quote.
  package var keyOffset: Int
  /// The value.
  package var value: JSONValue
}
