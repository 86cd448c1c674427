import Testing

@testable import CallAlertKDEConnect

/// When this host announces itself: only to find what is missing, since every announcement makes a device that
/// hears it drop its link for a new one.
@Suite struct KDEConnectAnnouncementTests {
  @Test(arguments: [
    (0, 0, true),  // nothing linked, nothing paired: a phone to pair may be listening
    (1, 0, false),  // a phone linked to pair (or paired and here): a new link would drop the answer in flight
    (1, 1, true),  // a paired phone is away
    (0, 2, true),
    (3, 0, false),
  ])
  func announcesOnlyToFindWhatIsMissing(linked: Int, pairedAway: Int, announces: Bool) {
    #expect(KDEConnectService.announces(linked: linked, pairedAway: pairedAway) == announces)
  }
}
