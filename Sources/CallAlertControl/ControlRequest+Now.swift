import CallAlertEngine
import CallAlertValues

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension ControlRequest {
  /// The longest a do-not-disturb switch may be made for with `until`: 30 days. Longer than any holiday, short
  /// enough that a typo in the year is caught rather than silencing calls for a decade.
  public static let longestTimedSwitch: TimeInterval = 30 * 86_400

  /// What only the moment of arrival can show is wrong with the request, as bad input in `place` (`socket:3`,
  /// `http`): a do-not-disturb `until` that is not after `now`, or more than ``longestTimedSwitch`` ahead.
  /// Nil when nothing is.
  public func problem(at now: Date, place: String) -> ControlFailure? {
    guard case .input(.setDoNotDisturb(_, let until?)) = self else { return nil }
    let message: String
    if until <= now {
      message = "\(Timestamp.iso8601(until)) is not after now (\(Timestamp.iso8601(now))); give a time to come"
    } else if until.timeIntervalSince(now) > Self.longestTimedSwitch {
      message =
        "\(Timestamp.iso8601(until)) is more than 30 days ahead; switch without until to keep the mode until "
        + "switched again"
    } else {
      return nil
    }
    return ControlFailure(error: "\(place): until: \(message)", location: place, field: "until", message: message)
  }
}
