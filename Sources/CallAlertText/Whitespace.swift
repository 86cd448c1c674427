/// Trimming as Foundation's `trimmingCharacters(in: .whitespaces)` and `(in: .whitespacesAndNewlines)` do it,
/// so that modules which need nothing else of full Foundation need not link it (and ICU's tables) for this.
extension StringProtocol {
  /// The text without the spaces and tabs at either end (`CharacterSet.whitespaces`: tab and every
  /// space separator, U+0020, U+00A0, U+2000 to U+200B, U+3000 and the others).
  package func trimmingWhitespace() -> String { trimming(where: Whitespace.isSpace) }

  /// The text without the spaces, tabs and line breaks at either end (`CharacterSet.whitespacesAndNewlines`:
  /// also U+000A to U+000D, U+0085, U+2028 and U+2029).
  package func trimmingWhitespaceAndNewlines() -> String {
    trimming { Whitespace.isSpace($0) || Whitespace.isNewline($0) }
  }

  private func trimming(where isTrimmed: (Unicode.Scalar) -> Bool) -> String {
    let scalars = String(self).unicodeScalars
    guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
      let last = scalars.lastIndex(where: { !isTrimmed($0) })
    else { return "" }
    return String(Substring(scalars[first...last]))
  }
}

/// The two scalar classes of ``Swift/StringProtocol/trimmingWhitespace()``.
package enum Whitespace {
  /// A tab, a space separator (general category Zs), or ZERO WIDTH SPACE, which Foundation's set still holds
  /// from the Unicode versions that called it a space.
  package static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
    scalar == "\t" || scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator
  }

  /// A line or paragraph break: LF, VT, FF, CR, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR.
  package static func isNewline(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
    default: false
    }
  }
}
