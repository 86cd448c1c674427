import Testing

@testable import CallAlertEngine

/// Reading numbers into E.164.
@Suite struct PhoneNumberTests {
  /// (as written, default region, E.164; nil: no number).
  static let numbers: [(String?, String, String?)] = [
    // International forms need no region.
    ("+49 30 1234567", "DE", "+49301234567"),
    ("+49 30 1234567", "XX", "+49301234567"),
    ("0049 30 1234567", "US", "+49301234567"),
    ("+49 (0)30 1234567", "DE", "+49301234567"),
    ("+1 (415) 555-0100", "DE", "+14155550100"),
    ("011 44 20 7946 0958", "US", "+442079460958"),
    ("tel:+41 44 668 18 00", "CH", "+41446681800"),
    ("  +43 1 234567 ", "AT", "+431234567"),
    // National numbers with a trunk 0.
    ("030 1234567", "DE", "+49301234567"),
    ("030-1234567", "DE", "+49301234567"),
    ("030/123 45 67", "DE", "+49301234567"),
    ("030.1234567", "DE", "+49301234567"),
    ("030\u{2013}1234567", "DE", "+49301234567"),
    ("020 7946 0958", "GB", "+442079460958"),
    ("01 23 45 67 89", "FR", "+33123456789"),
    ("044 668 18 00", "ch", "+41446681800"),
    ("01 234567", "AT", "+431234567"),
    ("08-123 456 78", "SE", "+46812345678"),
    ("020 123 4567", "NL", "+31201234567"),
    ("03-1234-5678", "JP", "+81312345678"),
    ("02 9876 5432", "AU", "+61298765432"),
    ("022 1234 5678", "IN", "+912212345678"),
    // Italy keeps the leading 0 in international form.
    ("06 1234 5678", "IT", "+390612345678"),
    // National numbers without a trunk 0.
    ("(415) 555-0100", "US", "+14155550100"),
    ("415.555.0100", "CA", "+14155550100"),
    ("1 415 555 0100", "US", "+14155550100"),
    ("91 123 45 67", "ES", "+34911234567"),
    ("(11) 91234-5678", "BR", "+5511912345678"),
    // No number.
    (nil, "US", nil),
    ("", "US", nil),
    ("   ", "US", nil),
    ("anonymous", "US", nil),
    ("Anonymous", "US", nil),
    ("unknown", "US", nil),
    ("withheld", "GB", nil),
    ("private", "DE", nil),
    ("030 1234567", "XX", nil),  // national, and the region is unknown
    ("1-800-FLOWERS", "US", nil),
    ("+49+30", "DE", nil),
    ("+0123", "DE", nil),
    ("+1234567890123456", "DE", nil),  // 16 digits
  ]

  @Test(arguments: numbers)
  func normalisesToE164(raw: String?, region: String, e164: String?) {
    #expect(PhoneNumber.e164(raw, defaultRegion: region) == e164)
    #expect(PhoneNumber(raw, defaultRegion: region)?.description == e164)
  }

  @Test(arguments: [
    ("US", "1"), ("CA", "1"), ("GB", "44"), ("DE", "49"), ("FR", "33"), ("IT", "39"), ("ES", "34"), ("NL", "31"),
    ("CH", "41"), ("AT", "43"), ("SE", "46"), ("JP", "81"), ("AU", "61"), ("IN", "91"), ("BR", "55"), ("de", "49"),
  ])
  func knowsTheCallingCodes(region: String, code: String) {
    #expect(PhoneNumber.callingCode(forRegion: region) == code)
  }

  @Test func unknownRegionsHaveNoCallingCode() {
    #expect(PhoneNumber.callingCode(forRegion: "XX") == nil)
  }

  @Test func hashableForSetsOfCallers() {
    let numbers: Set = [
      PhoneNumber("030 1234567", defaultRegion: "DE"), PhoneNumber("+49301234567", defaultRegion: "US"),
    ]
    #expect(numbers.count == 1)
  }
}
