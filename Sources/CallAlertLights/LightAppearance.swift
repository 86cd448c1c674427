/// How a light shows calls: the colour of a ring and of the missed-call indicator, and on a Kuando the
/// ringtone and volume; each pattern may have a colour and ringtone of its own.
public struct LightAppearance: Equatable, Sendable {
  /// A pattern's own colour and ringtone, by the pattern's name.
  public struct PatternLook: Equatable, Sendable {
    /// The pattern's name, as rules name it (compared without case).
    public var pattern: String
    /// Its colour; nil: the light's.
    public var color: LightColor?
    /// Its ringtone; nil: the light's.
    public var ringtone: KuandoRingtone?

    /// Creates a look.
    public init(pattern: String, color: LightColor? = nil, ringtone: KuandoRingtone? = nil) {
      self.pattern = pattern
      self.color = color
      self.ringtone = ringtone
    }
  }

  /// The colour of a ring whose pattern has none of its own.
  public var color: LightColor
  /// The ringtone of a ring whose pattern has none of its own (a Kuando's).
  public var ringtone: KuandoRingtone
  /// The ringtone's volume, 0 to 7.
  public var volume: UInt8
  /// The colour of the missed-call indicator.
  public var indicatorColor: LightColor
  /// Patterns with a look of their own.
  public var patterns: [PatternLook]

  /// Creates an appearance; the defaults are a red ring with the original telephone ringtone at volume 4 and
  /// an orange missed-call indicator.
  public init(
    color: LightColor = LightColor(red: 255, green: 0, blue: 0), ringtone: KuandoRingtone = .telephoneOriginal,
    volume: UInt8 = 4, indicatorColor: LightColor = LightColor(red: 255, green: 96, blue: 0),
    patterns: [PatternLook] = []
  ) {
    self.color = color
    self.ringtone = ringtone
    self.volume = min(volume, KuandoSound.maximumVolume)
    self.indicatorColor = indicatorColor
    self.patterns = patterns
  }

  /// The colour and ringtone for the pattern named `name` (nil: a pattern without a name).
  public func look(for name: String?) -> (color: LightColor, ringtone: KuandoRingtone) {
    let own = name.flatMap { name in patterns.first { $0.pattern.lowercased() == name.lowercased() } }
    return (own?.color ?? color, own?.ringtone ?? ringtone)
  }
}
