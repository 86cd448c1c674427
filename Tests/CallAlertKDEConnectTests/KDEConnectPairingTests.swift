import CallAlertKDEConnect
import Foundation
import Testing

/// Pairing as the phone asks and the user accepts here, with time as data.
@Suite struct KDEConnectPairingTests {
  static let now = Date(timeIntervalSince1970: 1_764_230_400)
  static let stamp: Int64 = 1_764_230_400

  @Test func aRequestAcceptedInTimePinsTheCertificate() throws {
    var pairing = KDEConnectPairing(paired: false)
    #expect(pairing.received(pair: true, timestamp: Self.stamp, protocolVersion: 8, now: Self.now) == [.showRequest])
    #expect(pairing.isRequested)
    #expect(pairing.received(pair: true, timestamp: Self.stamp, protocolVersion: 8, now: Self.now).isEmpty)
    let accepted = pairing.accept()
    #expect(accepted == [.send(pair: true), .pin])
    #expect(pairing.isPaired)
    #expect(pairing.tick(now: Self.now.addingTimeInterval(60)).isEmpty)
  }

  @Test func aRequestNobodyAcceptsTimesOut() {
    var pairing = KDEConnectPairing(paired: false)
    _ = pairing.received(pair: true, timestamp: Self.stamp, protocolVersion: 8, now: Self.now)
    #expect(pairing.tick(now: Self.now.addingTimeInterval(29)).isEmpty)
    #expect(
      pairing.tick(now: Self.now.addingTimeInterval(30)) == [
        .send(pair: false), .failed("nobody accepted within 30 s"),
      ])
    #expect(pairing.accept() == nil)
  }

  @Test func protocol8NeedsATimestampNearOurClock() {
    var pairing = KDEConnectPairing(paired: false)
    #expect(
      pairing.received(pair: true, timestamp: nil, protocolVersion: 8, now: Self.now) == [
        .send(pair: false), .failed("a protocol 8 request without its timestamp"),
      ])
    #expect(
      pairing.received(pair: true, timestamp: Self.stamp - 3_600, protocolVersion: 8, now: Self.now) == [
        .send(pair: false), .failed("the phone's clock and this host's differ by over 30 minutes"),
      ])
    var old = KDEConnectPairing(paired: false)
    #expect(old.received(pair: true, timestamp: nil, protocolVersion: 7, now: Self.now) == [.showRequest])
  }

  @Test func thePhoneUnpairsOrCancels() {
    var paired = KDEConnectPairing(paired: true)
    #expect(paired.received(pair: false, timestamp: nil, protocolVersion: 8, now: Self.now) == [.unpin])
    #expect(!paired.isPaired)
    var again = KDEConnectPairing(paired: true)
    #expect(
      again.received(pair: true, timestamp: Self.stamp, protocolVersion: 8, now: Self.now) == [.unpin, .showRequest])
    var cancelled = KDEConnectPairing(paired: false)
    _ = cancelled.received(pair: true, timestamp: Self.stamp, protocolVersion: 8, now: Self.now)
    #expect(
      cancelled.received(pair: false, timestamp: nil, protocolVersion: 8, now: Self.now) == [
        .failed("the phone cancelled its request")
      ])
    var lost = KDEConnectPairing(paired: false)
    _ = lost.received(pair: true, timestamp: Self.stamp, protocolVersion: 8, now: Self.now)
    lost.linkLost()
    #expect(lost.state == .notPaired)
  }

  @Test func theVerificationKeyIsTheSameFromBothSides() throws {
    let ours = try KDEConnectCertificate.make(now: Self.now)
    let theirs = try KDEConnectCertificate.make(now: Self.now)
    let key = try #require(
      KDEConnectCertificate.verificationKey(ours: ours.der, theirs: theirs.der, timestamp: Self.stamp))
    #expect(key.count == 8)
    #expect(KDEConnectCertificate.verificationKey(ours: theirs.der, theirs: ours.der, timestamp: Self.stamp) == key)
    #expect(KDEConnectCertificate.commonName(der: ours.der) == ours.deviceID)
    #expect(KDEConnectIdentity.isValidDeviceID(ours.deviceID))
  }
}
