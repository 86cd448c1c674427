/// What a Kuando plays through its speaker: a ringtone at a volume.
public struct KuandoSound: Equatable, Sendable {
  /// The loudest volume a step can carry (3 bits).
  public static let maximumVolume: UInt8 = 7

  /// The ringtone; ``KuandoRingtone/off`` is silence.
  public var ringtone: KuandoRingtone
  /// 0 (silent) to 7; larger values are lowered to 7.
  public var volume: UInt8

  /// Creates a sound; a volume above 7 is lowered to 7.
  public init(ringtone: KuandoRingtone, volume: UInt8) {
    self.ringtone = ringtone
    self.volume = min(volume, Self.maximumVolume)
  }

  /// Silence, as a step that changes the sound says it.
  public static let silence = KuandoSound(ringtone: .off, volume: 0)
}
