/// A path to a value inside a JSON document: `data.call.id`, `items[0].id`, `aps.thread-id`, or with a
/// bracketed key for names that contain dots: `meta["x.y"].id`.
public struct JSONPath: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
  /// One step of a path.
  public enum Component: Hashable, Sendable {
    /// An object member by name.
    case key(String)
    /// An array element by position, from 0.
    case index(Int)
  }

  /// The steps, outermost first.
  public var components: [Component]

  /// Creates a path from its steps.
  public init(components: [Component]) {
    self.components = components
  }

  /// Parses a path; nil when it is not one (empty, an empty name between dots, a bracket that does not
  /// hold a number or a quoted name).
  public init?(_ text: String) {
    guard let components = JSONPath.parse(Array(text.unicodeScalars)) else { return nil }
    self.components = components
  }

  /// Creates a path from a literal; the literal must be a valid path.
  public init(stringLiteral value: String) {
    guard let path = JSONPath(value) else { preconditionFailure("'\(value)' is not a JSON path") }
    self = path
  }

  /// The path as written: keys joined by dots, indexes in brackets, awkward keys as `["..."]`.
  public var description: String {
    var result = ""
    for component in components {
      switch component {
      case .index(let index): result += "[\(index)]"
      case .key(let key):
        let plain = !key.isEmpty && key.unicodeScalars.allSatisfy { !JSONPath.special.contains($0) }
        if plain {
          result += (result.isEmpty ? "" : ".") + key
        } else {
          result += "[" + JSONText.quoted(key) + "]"
        }
      }
    }
    return result
  }

  private static let special: Set<Unicode.Scalar> = [".", "[", "]", "\""]

  private static func parse(_ scalars: [Unicode.Scalar]) -> [Component]? {
    var components: [Component] = []
    var index = 0
    var expectName = true
    while index < scalars.count {
      let scalar = scalars[index]
      if scalar == "[" {
        guard !expectName || components.isEmpty else { return nil }
        index += 1
        if index < scalars.count, scalars[index] == "\"" {
          index += 1
          var key = ""
          while index < scalars.count, scalars[index] != "\"" {
            if scalars[index] == "\\", index + 1 < scalars.count { index += 1 }
            key.unicodeScalars.append(scalars[index])
            index += 1
          }
          guard index + 1 < scalars.count, scalars[index + 1] == "]" else { return nil }
          index += 2
          components.append(.key(key))
        } else {
          var digits = ""
          while index < scalars.count, ("0"..."9").contains(scalars[index]) {
            digits.unicodeScalars.append(scalars[index])
            index += 1
          }
          guard !digits.isEmpty, digits.count <= 9, index < scalars.count, scalars[index] == "]",
            let number = Int(digits)
          else { return nil }
          index += 1
          components.append(.index(number))
        }
        expectName = false
      } else if scalar == "." {
        guard !components.isEmpty, !expectName else { return nil }
        index += 1
        expectName = true
      } else {
        guard expectName else { return nil }
        var name = ""
        while index < scalars.count, !special.contains(scalars[index]) {
          name.unicodeScalars.append(scalars[index])
          index += 1
        }
        guard !name.isEmpty else { return nil }
        components.append(.key(name))
        expectName = false
      }
    }
    return components.isEmpty || expectName ? nil : components
  }
}
