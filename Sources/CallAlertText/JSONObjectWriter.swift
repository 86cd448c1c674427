/// Writes one JSON object, member by member, into one UTF-8 buffer: the event lines the daemon prints for every
/// event are built without a string per member and per nested object. Keys are the caller's literals, written
/// as they are (they need no escaping); values are escaped as ``JSONText/quoted(_:)`` escapes them.
package struct JSONObjectWriter {
  private var bytes: [UInt8]
  private var empty = true

  /// An object with no members yet.
  package init(capacity: Int = 256) {
    bytes = []
    bytes.reserveCapacity(capacity)
    bytes.append(UInt8(ascii: "{"))
  }

  private mutating func key(_ key: StaticString) {
    if !empty { bytes.append(UInt8(ascii: ",")) }
    empty = false
    bytes.append(UInt8(ascii: "\""))
    key.withUTF8Buffer { bytes.append(contentsOf: $0) }
    bytes.append(UInt8(ascii: "\""))
    bytes.append(UInt8(ascii: ":"))
  }

  /// `"key":"value"`, escaped.
  package mutating func string(_ key: StaticString, _ value: String) {
    self.key(key)
    JSONText.appendQuoted(value, to: &bytes)
  }

  /// `"key":"value"`, or `"key":null`.
  package mutating func string(_ key: StaticString, _ value: String?) {
    guard let value else { return raw(key, "null") }
    string(key, value)
  }

  /// `"key":` and `json`, which is JSON text already (a number, `true`, an object written elsewhere).
  package mutating func raw(_ key: StaticString, _ json: String) {
    self.key(key)
    bytes.append(contentsOf: json.utf8)
  }

  /// `"key":123`.
  package mutating func number(_ key: StaticString, _ value: some BinaryInteger) {
    raw(key, String(value))
  }

  /// `"key":true` or `false`.
  package mutating func bool(_ key: StaticString, _ value: Bool) {
    raw(key, value ? "true" : "false")
  }

  /// `"key":["a","b"]`, each escaped.
  package mutating func strings(_ key: StaticString, _ values: [String]) {
    self.key(key)
    bytes.append(UInt8(ascii: "["))
    for (index, value) in values.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      JSONText.appendQuoted(value, to: &bytes)
    }
    bytes.append(UInt8(ascii: "]"))
  }

  /// `"key":{...}`, the nested object's members written by `members` into the same buffer.
  package mutating func object(_ key: StaticString, _ members: (inout JSONObjectWriter) -> Void) {
    self.key(key)
    var nested = JSONObjectWriter(capacity: 0)
    swap(&nested.bytes, &bytes)
    nested.bytes.append(UInt8(ascii: "{"))
    members(&nested)
    nested.bytes.append(UInt8(ascii: "}"))
    swap(&nested.bytes, &bytes)
  }

  /// The object's text.
  package consuming func finish() -> String {
    bytes.append(UInt8(ascii: "}"))
    return String(decoding: bytes, as: UTF8.self)
  }
}
