/// The page's one style sheet, shipped in the binary. Colours keep WCAG 2.2 AA contrast (text at least 4.5:1,
/// the banner's white on dark red about 11:1, controls and focus rings at least 3:1); nothing blinks or
/// flashes; the one movement (a ringing board's motor) is slow and only where the user has not asked for
/// reduced motion.
enum PageStyle {
  static let css = """
    :root { color-scheme: light; --ink: #111; --paper: #fff; --link: #0645ad; --accent: #0b4f9c; --alarm: #7a0000;
      --muted: #4a4a4a; --line: #767676; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 1.0625rem/1.5 system-ui, sans-serif; color: var(--ink); background: var(--paper); }
    a { color: var(--link); }
    .skip { position: absolute; left: -999px; top: 0; background: var(--paper); padding: .5rem 1rem; }
    .skip:focus { left: 1rem; }
    header { display: flex; flex-wrap: wrap; align-items: center; gap: 1rem 2rem; padding: .75rem 1rem;
      border-bottom: 2px solid var(--line); }
    .brand { margin: 0; font-weight: 700; font-size: 1.25rem; }
    nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1.25rem; list-style: none; margin: 0; padding: 0; }
    nav a { display: inline-block; padding: .5rem .25rem; }
    nav a[aria-current="page"] { font-weight: 700; text-decoration-thickness: 3px; }
    main { padding: 1rem; max-width: 60rem; }
    h1 { margin: .25rem 0 1rem; }
    h2 { margin: 1.5rem 0 .5rem; }
    form { display: inline-block; margin: .25rem .5rem .25rem 0; }
    .button { font: inherit; min-height: 2.75rem; min-width: 2.75rem; padding: .5rem 1rem; border: 2px solid var(--accent);
      border-radius: .375rem; background: var(--accent); color: #fff; cursor: pointer; }
    .button:hover { background: #083a73; }
    .small { padding: .25rem .75rem; margin-left: .75rem; }
    :focus-visible { outline: 3px solid var(--ink); outline-offset: 3px; }
    .banner { background: var(--alarm); color: #fff; padding: 1rem 1.25rem; border-radius: .5rem;
      border: 4px solid #000; }
    .banner h2 { margin-top: 0; font-size: 2rem; }
    .banner .calls { list-style: none; margin: 0; padding: 0; }
    .banner .call { border-top: 2px solid #fff; padding: .5rem 0; }
    .banner .who { font-size: 2.25rem; font-weight: 700; margin: 0; line-height: 1.2; }
    .banner .detail { font-size: 1.25rem; margin: .25rem 0 .5rem; }
    .banner .button { background: #fff; color: var(--alarm); border-color: #fff; font-weight: 700; }
    .banner .button:hover { background: #f0e0e0; }
    .banner .strong { font-size: 1.25rem; }
    .banner :focus-visible { outline-color: #fff; }
    .boards { display: grid; grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr)); gap: 1rem; list-style: none;
      padding: 0; }
    .board { border: 2px solid var(--line); border-radius: .5rem; padding: .75rem 1rem; }
    .board.playing { border-color: var(--alarm); border-width: 4px; }
    .board h3 { margin: 0 0 .5rem; }
    .parts { display: flex; gap: 1rem; align-items: center; font-size: 1.75rem; height: 2.5rem; }
    .led { display: inline-block; width: 1.75rem; height: 1.75rem; border-radius: 50%; border: 2px solid var(--ink); }
    .led-on { background: #1a7f37; box-shadow: 0 0 .75rem .25rem #1a7f37; }
    .led-missed { background: #b35900; }
    .led-off { background: #e6e6e6; }
    .buzzer, .motor { color: #595959; }
    .buzzer.on, .motor.on { color: var(--alarm); font-weight: 700; }
    @media (prefers-reduced-motion: no-preference) {
      .motor.on { display: inline-block; animation: shake 1s ease-in-out infinite; }
      @keyframes shake { 0%, 100% { transform: translateX(0); } 50% { transform: translateX(.25rem); } }
    }
    dl { display: grid; grid-template-columns: max-content 1fr; gap: .125rem 1rem; margin: .5rem 0 0; }
    dt { font-weight: 600; }
    dd { margin: 0; }
    table { border-collapse: collapse; width: 100%; margin-top: .5rem; }
    caption { text-align: left; font-weight: 600; padding: .25rem 0; }
    th, td { text-align: left; padding: .375rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
    tr.unacknowledged td { font-weight: 600; }
    tr.finding-error td { font-weight: 600; color: var(--alarm); }
    .filter { margin-bottom: .5rem; }
    .problem, .error { border-left: 6px solid var(--alarm); padding: .5rem 1rem; background: #fbeaea; }
    label { display: block; font-weight: 600; margin: .5rem 0 .25rem; }
    #pattern-editor { display: block; }
    .preview { max-width: 45rem; }
    .track { position: relative; height: .75rem; margin: .5rem 0; border: 2px solid var(--line); border-radius: .375rem; }
    .head { position: absolute; top: -.375rem; left: 0; width: .25rem; height: 1.25rem; background: var(--ink); }
    .now { margin: .25rem 0; font-variant-numeric: tabular-nums; }
    textarea { display: block; width: 100%; max-width: 50rem; font: .9375rem/1.4 ui-monospace, monospace;
      padding: .5rem; border: 2px solid var(--line); border-radius: .25rem; }
    .diagnostics { padding-left: 1.25rem; }
    .error-line code { color: var(--alarm); font-weight: 600; }
    .fine { color: #1a5e2a; font-weight: 600; }
    .refusal { border-left: 4px solid var(--alarm); padding-left: 0.75rem; }
    .refusal pre { white-space: pre-wrap; color: var(--alarm); }
    ul.flash { list-style: none; padding-left: 0; }
    ul.flash li { margin: 0.25rem 0; }
    ul.flash .board-name { display: inline-block; min-width: 6rem; font-weight: 600; }
    ul.flash li.error-line { color: var(--alarm); }
    select { font: inherit; padding: .375rem; border: 2px solid var(--line); border-radius: .25rem; }
    input[type="password"] { font: inherit; padding: .5rem; border: 2px solid var(--line); border-radius: .25rem;
      min-width: 20rem; max-width: 100%; }
    .muted { color: var(--muted); }
    figure.pattern { margin: 1rem 0; }
    figure.pattern figcaption { font-weight: 600; }
    figure.pattern svg { max-width: 100%; height: auto; border: 1px solid var(--line); }
    """
}
