import CallAlertPatterns
import CallAlertProtocol

/// A pattern played in the browser, under its drawing: a *Play* button (shown only where the script runs, since
/// nothing can play without it) that sounds the buzzer's steps as a square wave (Web Audio) and moves a marker
/// along a bar as long as the pattern, with the buzzer, motor and LED of the moment in words. The steps travel
/// in `data-timeline` as `start,duration,hz,volume,motor,leds` per segment (the first 30 s, as drawn).
///
/// Nothing flashes: the LED is words, not a lamp that could blink faster than 3 times a second (WCAG 2.3.1),
/// and under `prefers-reduced-motion` the marker stays still while the words change.
struct PatternPreview {
  let definition: PatternDefinition
  /// Unique on the page, for the button's and the words' ids.
  let index: Int

  var html: String {
    let timeline = PatternTimeline(definition.pattern)
    let data = timeline.segments.map { segment in
      let step = segment.step
      return "\(segment.startMs),\(segment.durationMs),\(step.isAudible ? Int(step.buzzerHz) : 0),"
        + "\(step.buzzerVolume),\(step.motor),\(step.leds)"
    }.joined(separator: ";")
    var html = "<div class=\"preview\" hidden data-timeline=\"\(data)\" data-length=\"\(timeline.lengthMs)\">"
    html += "<button type=\"button\" class=\"button play\" id=\"play-\(index)\""
    html += " aria-describedby=\"now-\(index)\">Play \(HTML.escape(definition.name))</button>"
    html += "<div class=\"track\" aria-hidden=\"true\"><div class=\"head\"></div></div>"
    html += "<p class=\"now\" id=\"now-\(index)\" aria-live=\"off\">Not playing.</p></div>"
    return html
  }
}
