/// A telephone number in E.164 form (`+` and up to 15 digits), read from whatever a notification or a config
/// file wrote.
///
/// Rules and allowed callers compare numbers, and the same person's number arrives as "+49 30 1234567" in
/// one place and "030-1234567" in another; comparing the E.164 forms makes them equal. Withheld numbers
/// ("anonymous", "unknown", empty) have no E.164 form, so they never match anything, not even each other.
///
/// This is deliberately not a full numbering-plan library: it strips the usual separators, reads the
/// international prefixes (`+`, `00`, and `011` in North America), and gives national numbers the default
/// region's calling code, dropping the trunk prefix `0` where the region uses one.
public struct PhoneNumber: Hashable, Sendable, CustomStringConvertible {
  /// The number in E.164 form, e.g. "+49301234567".
  public let e164: String

  /// Reads `raw`, taking numbers without a country code as national numbers of `defaultRegion` (ISO 3166
  /// alpha-2, e.g. "DE"); nil when the number is withheld, malformed, or national in an unknown region.
  public init?(_ raw: String?, defaultRegion: String) {
    guard let raw, let e164 = Self.normalise(raw, defaultRegion: defaultRegion) else { return nil }
    self.e164 = e164
  }

  /// The E.164 form.
  public var description: String { e164 }

  /// The E.164 form of `raw` (see ``init(_:defaultRegion:)``), or nil.
  public static func e164(_ raw: String?, defaultRegion: String) -> String? {
    PhoneNumber(raw, defaultRegion: defaultRegion)?.e164
  }

  /// The country calling code (digits, without `+`) of an ISO 3166 alpha-2 region, e.g. "49" for "DE";
  /// nil for a region the table does not know. Lets the config loader reject a `defaultRegion` it cannot use.
  public static func callingCode(forRegion region: String) -> String? {
    callingCodes[canonicalRegion(region)]
  }

  /// `region` upper-cased, with `UK` read as `GB`: ISO 3166 says GB, people write UK, and both mean the same.
  public static func canonicalRegion(_ region: String) -> String {
    let code = region.uppercased()
    return code == "UK" ? "GB" : code
  }

  /// Calling codes by region. Several regions share one code (North America's 1, Russia and Kazakhstan's 7).
  public static let callingCodes: [String: String] = [
    // North American Numbering Plan.
    "US": "1", "CA": "1", "PR": "1", "GU": "1", "VI": "1", "AS": "1", "MP": "1", "BS": "1", "BB": "1", "JM": "1",
    "TT": "1", "DO": "1", "BM": "1",
    // Europe.
    "GB": "44", "IE": "353", "DE": "49", "FR": "33", "IT": "39", "ES": "34", "PT": "351", "NL": "31", "BE": "32",
    "LU": "352", "CH": "41", "AT": "43", "LI": "423", "DK": "45", "SE": "46", "NO": "47", "FI": "358", "IS": "354",
    "PL": "48", "CZ": "420", "SK": "421", "HU": "36", "SI": "386", "HR": "385", "RO": "40", "BG": "359", "GR": "30",
    "CY": "357", "MT": "356", "EE": "372", "LV": "371", "LT": "370", "UA": "380", "RS": "381", "TR": "90",
    "RU": "7", "KZ": "7", "MC": "377", "SM": "378", "VA": "39",
    // Asia and Oceania.
    "JP": "81", "KR": "82", "CN": "86", "HK": "852", "TW": "886", "SG": "65", "MY": "60", "TH": "66", "ID": "62",
    "PH": "63", "VN": "84", "IN": "91", "PK": "92", "IL": "972", "AE": "971", "SA": "966", "AU": "61", "NZ": "64",
    // The Americas and Africa.
    "BR": "55", "MX": "52", "AR": "54", "CL": "56", "CO": "57", "PE": "51", "ZA": "27", "NG": "234", "KE": "254",
    "EG": "20", "MA": "212",
  ]

  /// Regions where the leading 0 of a national number is part of the number, not a trunk prefix (Italy and
  /// the states inside it keep it in international form: +39 06 ...).
  private static let regionsKeepingLeadingZero: Set<String> = ["IT", "SM", "VA"]

  /// What senders write instead of a number when it is withheld.
  private static let withheldWords: Set<String> = [
    "", "anonymous", "unknown", "withheld", "private", "restricted", "unavailable", "blocked", "hidden",
  ]

  /// The most digits E.164 allows, and the fewest we take for a number rather than noise.
  private static let digitRange = 3...15

  private static func normalise(_ raw: String, defaultRegion: String) -> String? {
    var text = Substring(raw).drop { $0.isWhitespace }
    while text.last?.isWhitespace == true { text = text.dropLast() }
    if text.lowercased().hasPrefix("tel:") { text = text.dropFirst(4) }
    guard !withheldWords.contains(text.lowercased()) else { return nil }
    // "+49 (0)30 ..." shows national callers the trunk 0; the international form has none.
    var written = String(text)
    if written.hasPrefix("+") || written.hasPrefix("00") {
      written = written.replacing("(0)", with: "")
    }
    guard let (hasPlus, digits) = digitsOf(written), !digits.isEmpty else { return nil }

    let international: Substring
    let region = canonicalRegion(defaultRegion)
    let code = callingCode(forRegion: region)
    if hasPlus {
      international = digits[...]
    } else if digits.hasPrefix("00") {
      international = digits.dropFirst(2)
    } else if code == "1" && digits.hasPrefix("011") {
      // North America's international prefix.
      international = digits.dropFirst(3)
    } else {
      guard let code else { return nil }
      if code == "1" {
        // NANP has no trunk 0; a leading 1 on an 11-digit number is the country code itself.
        international = digits.count == 11 && digits.hasPrefix("1") ? digits[...] : Substring(code + digits)
      } else if digits.hasPrefix("0") && !regionsKeepingLeadingZero.contains(region) {
        international = Substring(code + digits.dropFirst())
      } else {
        international = Substring(code + digits)
      }
    }
    // No country code starts with 0, and E.164 allows at most 15 digits.
    guard digitRange.contains(international.count), international.first != "0" else { return nil }
    return "+" + international
  }

  /// The digits of `text` and whether it began with `+`; nil when it holds anything but digits, one leading
  /// `+` and the separators people write (spaces, dashes, dots, slashes, parentheses).
  private static func digitsOf(_ text: String) -> (Bool, String)? {
    var digits = ""
    var hasPlus = false
    for character in text {
      if character == "+" {
        guard digits.isEmpty, !hasPlus else { return nil }
        hasPlus = true
      } else if character.isASCII, character.isNumber {
        digits.append(character)
      } else if !(character.isWhitespace || separators.contains(character)) {
        return nil
      }
    }
    return (hasPlus, digits)
  }

  /// Separators besides whitespace, including the Unicode dashes that word processors substitute.
  private static let separators: Set<Character> = [
    "-", ".", "/", "(", ")", "\u{2010}", "\u{2011}", "\u{2012}", "\u{2013}", "\u{2014}", "\u{2212}",
  ]
}
