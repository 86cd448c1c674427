#!/usr/bin/env python3
"""The page in a real browser: Debian's chromium, driven by Selenium through /usr/bin/chromedriver, against a
daemon (`callalert run --simulate`, virtual boards) whose control socket this script uses as a phone system would.

Checks, each with a bound: a call made on the socket is on the page as an alert within 1 s and gone within 1 s of
its hangup; the page's stop, stop-all, acknowledge (all, and one missed call) and do-not-disturb buttons act on the daemon (read back on the
socket); axe-core (the axe-selenium-python wheel) finds no violation on any page, while a call rings and when not;
the keyboard reaches the skip link first; under prefers-reduced-motion nothing moves. Screenshots of each page
are written to the artefacts folder. Usage: check-page.py BASE_URL SOCKET ARTEFACTS
"""
import datetime
import json
import os
import socket
import sys
import time

from axe_selenium_python import Axe
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

BASE, SOCKET, ARTEFACTS = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []
passed = 0


def check(condition, what):
    global passed
    if condition:
        passed += 1
        print(f"ok: {what}")
    else:
        failures.append(what)
        print(f"FAILED: {what}")


def control(request):
    """One request on the daemon's control socket; its answer, parsed."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(5)
        client.connect(SOCKET)
        client.sendall((json.dumps(request) + "\n").encode())
        answer = b""
        while not answer.endswith(b"\n"):
            chunk = client.recv(65536)
            if not chunk:
                break
            answer += chunk
    return json.loads(answer)


def status():
    return control({"type": "status"})["status"]


def until(predicate, seconds, what):
    """Polls the daemon's state until `predicate` holds, at most `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def accessible(driver, name):
    axe = Axe(driver)
    axe.inject()
    # Every rule the wheel's axe-core runs by default (WCAG 2.0/2.1 A and AA, and best practices); its axe-core
    # knows no wcag22 tags, and a tag it does not know leaves axe.run's promise unresolved.
    results = axe.run()
    violations = results["violations"]
    for violation in violations:
        print(f"  axe {name}: {violation['id']}: {violation['help']} ({len(violation['nodes'])} nodes)")
        for node in violation["nodes"][:3]:
            print(f"    {node['target']}: {node['failureSummary']}")
    check(not violations, f"axe-core finds no violation on {name}")


def shot(driver, name, around=None):
    """A screenshot of the page's top, or of the element with id `around`."""
    driver.execute_script("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
    if around:
        driver.execute_script("document.getElementById(arguments[0]).closest('figure, section').scrollIntoView()",
                              around)
    path = os.path.join(ARTEFACTS, f"{name}.png")
    driver.save_screenshot(path)
    print(f"screenshot: {path}")


def button(driver, element_id):
    return WebDriverWait(driver, 5).until(EC.element_to_be_clickable((By.ID, element_id)))


def where(driver):
    """Where the browser is and what it shows, for a failure's message."""
    return f"at {driver.current_url}: {driver.find_element(By.TAG_NAME, 'main').text[:300]!r}"


options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1200,1000", "--disable-extensions", "--autoplay-policy=no-user-gesture-required"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(10)
driver.set_script_timeout(30)
try:
    # The live view, nothing ringing.
    driver.get(BASE + "/")
    WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID, "live")))
    check(driver.current_url.endswith("/page"), "/ sends the browser to /page")
    check(driver.title == "Live - CallAlert", f"the title when nothing rings: {driver.title!r}")
    until(lambda: all(b["connected"] for b in status()["boards"]), 10, "boards connected")
    driver.refresh()
    accessible(driver, "the live view")
    shot(driver, "live")

    # The keyboard: the first Tab reaches the skip link.
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    focused = driver.switch_to.active_element
    check(focused.get_attribute("class") == "skip", "the first Tab reaches the skip link")

    # A call on the socket is an alert within 1 s, and the title says who calls.
    WebDriverWait(driver, 5).until(EC.presence_of_element_located((By.CSS_SELECTOR, "body[data-events=open]")))
    started = time.monotonic()
    answer = control({"type": "call", "id": "b1", "caller": "+14155550101", "name": "Alice"})
    check(answer.get("ok") is True, f"the call is taken: {answer}")
    try:
        WebDriverWait(driver, 1.0, poll_frequency=0.01).until(
            EC.text_to_be_present_in_element((By.CSS_SELECTOR, "[role=alert]"), "Alice"))
        shown = time.monotonic() - started
        check(shown < 1.0, f"the call is on the page as an alert within 1 s ({shown * 1000:.0f} ms)")
    except Exception:
        check(False, "the call is on the page as an alert within 1 s")
    check(driver.title.startswith("Ringing: Alice"), f"the title while it rings: {driver.title!r}")
    accessible(driver, "the live view while a call rings")
    shot(driver, "live-ringing")

    # Its hangup takes it off within 1 s.
    started = time.monotonic()
    control({"type": "hangup", "id": "b1"})
    try:
        WebDriverWait(driver, 1.0, poll_frequency=0.01).until(
            EC.invisibility_of_element_located((By.CSS_SELECTOR, "[role=alert]")))
        gone = time.monotonic() - started
        check(gone < 1.0, f"the alert is gone within 1 s of the hangup ({gone * 1000:.0f} ms)")
    except Exception:
        check(False, "the alert is gone within 1 s of the hangup")
    check(driver.title == "Live - CallAlert", "the title is back")

    # Stop this call, from the page.
    control({"type": "call", "id": "b2", "name": "Bob"})
    button(driver, "stop-0").click()
    check(until(lambda: not status()["calls"], 2, "stopped"),
          f"the page's Stop button stops the call on the daemon ({where(driver)})")

    # Stop all.
    control({"type": "call", "id": "b3", "name": "Carol"})
    control({"type": "call", "id": "b4", "name": "Dave"})
    WebDriverWait(driver, 2).until(EC.presence_of_element_located((By.ID, "stop-1")))
    button(driver, "stop-all").click()
    check(until(lambda: not status()["calls"], 2, "all stopped"), "Stop all stops every call on the daemon")

    # Do not disturb on, from the page: a call is held back and missed; acknowledged from the page.
    button(driver, "dnd-on").click()
    check(until(lambda: status()["do_not_disturb"]["mode"] == "on", 2, "dnd on"),
          "the page's do-not-disturb button switches the daemon")
    control({"type": "call", "id": "b5", "caller": "+14155550105", "name": "Eve"})
    control({"type": "call", "id": "b10", "caller": "+14155550106", "name": "Frank"})
    check(until(lambda: [c["id"] for c in status()["missed"]] == ["b5", "b10"], 2, "missed"),
          "held-back calls are missed")
    WebDriverWait(driver, 2).until(EC.presence_of_element_located((By.ID, "acknowledge")))
    accessible(driver, "the live view with missed calls")
    shot(driver, "live-missed")
    # One missed call by its own button: the other stays.
    eve = "//section[@id='missed']//form[input[@name='call' and @value='b5']]//button"
    WebDriverWait(driver, 2).until(EC.element_to_be_clickable((By.XPATH, eve)))
    check(driver.find_element(By.XPATH, eve).get_attribute("aria-label")
          == "Acknowledge the missed call from Eve (+14155550105)", "each missed call's button says whose it is")
    driver.find_element(By.XPATH, eve).click()
    check(until(lambda: [c["id"] for c in status()["missed"]] == ["b10"], 2, "one acknowledged"),
          "a missed call's own Acknowledge leaves the others")
    WebDriverWait(driver, 2).until(EC.presence_of_element_located((By.ID, "acknowledge")))
    button(driver, "acknowledge").click()
    check(until(lambda: not status()["missed"], 2, "acknowledged"), "the page's Acknowledge clears the missed calls")

    # History: newest first, missed / all.
    driver.get(BASE + "/page/history")
    rows = driver.find_elements(By.CSS_SELECTOR, "tbody tr")
    check(len(rows) >= 6 and "Frank" in rows[0].text and "Eve" in rows[1].text,
          "the history lists the calls, newest first")
    accessible(driver, "the history")
    shot(driver, "history")
    driver.find_element(By.LINK_TEXT, "Missed").click()
    check(all("missed" in row.text for row in driver.find_elements(By.CSS_SELECTOR, "tbody tr")),
          "the Missed filter shows missed calls only")
    accessible(driver, "the missed calls")

    # Quiet hours: switch off again.
    driver.get(BASE + "/page/quiet")
    accessible(driver, "quiet hours")
    shot(driver, "quiet")
    button(driver, "dnd-off-q").click()
    check(until(lambda: status()["do_not_disturb"]["mode"] == "off", 2, "dnd off"), "Quiet hours' button switches off")
    # On until a time two hours from now (the time field set as a browser's picker sets it): the daemon has the end,
    # the page says it, and a tap on Off makes it off for good.
    later = (datetime.datetime.now() + datetime.timedelta(hours=2)).strftime("%H:%M")
    WebDriverWait(driver, 2).until(EC.presence_of_element_located((By.ID, "dnd-until-q")))
    driver.execute_script("arguments[0].value = arguments[1]", driver.find_element(By.ID, "dnd-until-q"), later)
    button(driver, "dnd-on-until-q").click()
    check(until(lambda: status()["do_not_disturb"].get("until") is not None
                and status()["do_not_disturb"]["mode"] == "on", 2, "dnd on until"),
          "On until a time switches the daemon on with that end")
    WebDriverWait(driver, 2).until(EC.presence_of_element_located((By.ID, "dnd-off-q")))
    sentence = driver.find_element(By.CSS_SELECTOR, "p.dnd").text
    check("until " in sentence and later in sentence,  # "until 21:30", or "until Sat 00:30" past midnight
          "the quiet hours' page says until when")
    accessible(driver, "quiet hours with a switch made for a while")
    button(driver, "dnd-off-q").click()
    check(until(lambda: status()["do_not_disturb"]["mode"] == "off"
                and status()["do_not_disturb"].get("until") is None, 2, "dnd off for good"),
          "Off after a switch made for a while is off for good")

    # The quiet hours' editor: an error shows at its line and column as one types; a good section saved is in
    # force and shown; back to the config file's.
    driver.get(BASE + "/page/quiet")
    area = driver.find_element(By.ID, "quiet-text")
    area.clear()
    area.send_keys('do_not_disturb:\n  mode: scheduled\n  quiet_hours:\n    - {from: "22:00", to: "25:00"}\n')
    check(until(lambda: "quiet-hours:4:27" in driver.find_element(By.ID, "quiet-result").text, 3, "live check"),
          "the quiet hours' editor shows the config's error at its line and column as one types")
    accessible(driver, "the quiet hours' editor with an error")
    shot(driver, "quiet-editor-error")
    area.clear()
    area.send_keys('do_not_disturb:\n  mode: off\n  quiet_hours:\n    - {days: weekdays, from: "22:00", to: "07:00"}\n'
                   '  allowed_callers: ["+14155550199"]\n')
    button(driver, "quiet-save").click()
    WebDriverWait(driver, 3).until(EC.presence_of_element_located((By.ID, "quiet-reset")))
    check("22:00-07:00 Mon, Tue, Wed, Thu, Fri" in driver.page_source and "+14155550199" in driver.page_source,
          "a saved section is in force and shown as configured")
    button(driver, "quiet-reset").click()
    WebDriverWait(driver, 3).until(EC.invisibility_of_element_located((By.ID, "quiet-reset")))
    check("+14155550199" not in driver.page_source, "going back to the config file's quiet hours")

    # Patterns: drawn as timelines, each named for a screen reader.
    driver.get(BASE + "/page/patterns")
    drawings = driver.find_elements(By.CSS_SELECTOR, "figure.pattern svg[role=img]")
    check(len(drawings) >= 12, f"the built-in patterns are drawn ({len(drawings)})")
    accessible(driver, "the patterns")
    shot(driver, "patterns")

    # A pattern played in the browser: the words follow the steps; a second click stops it.
    button(driver, "play-1000").click()
    try:
        WebDriverWait(driver, 3).until(EC.text_to_be_present_in_element((By.ID, "now-1000"), "Buzzer"))
        check(True, "Play sounds a pattern and says its steps as it goes")
    except Exception:
        check(False, f"Play says the pattern's steps ({driver.find_element(By.ID, 'now-1000').text!r})")
    shot(driver, "pattern-playing", around="now-1000")
    button(driver, "play-1000").click()
    check(driver.find_element(By.ID, "now-1000").text == "Not playing.", "a second click stops it")

    # The pattern editor: a mistake typed is shown at its line and column as one types (patterns check's words).
    editor = driver.find_element(By.ID, "pattern-text")
    editor.clear()
    editor.send_keys("version: 1\npatterns:\n  - name: office\n    cadance: UK\n")
    try:
        WebDriverWait(driver, 3).until(EC.text_to_be_present_in_element((By.ID, "pattern-result"), "editor:4:5: error"))
        check(True, "the editor shows the diagnostic at its line and column as one types")
    except Exception:
        check(False, f"the editor shows the diagnostic at its line and column ({driver.find_element(By.ID, 'pattern-result').text!r})")
    accessible(driver, "the pattern editor with a diagnostic")
    shot(driver, "pattern-editor", around="pattern-result")

    # Save and flash: a good file is written and put on both boards, each board's bar on the page until done.
    editor = driver.find_element(By.ID, "pattern-text")
    editor.clear()
    editor.send_keys("version: 7\npatterns:\n  - name: office\n    cadence: UK\n  - name: night\n    cadence: US\n"
                     "    volume: 30%\n")
    before = driver.find_element(By.ID, "flash")  # the page's empty section before any flash
    button(driver, "pattern-flash").click()
    try:
        WebDriverWait(driver, 10).until(EC.staleness_of(before))  # the page the flash sends the browser back to
        WebDriverWait(driver, 20).until(
            lambda d: d.find_element(By.ID, "flash").get_attribute("data-active") == "false")
        text = driver.find_element(By.ID, "flash").text
        check(text.count("flashed and verified: table v7 active") == 2,
              f"Save and flash puts the file on both boards, verified, with each board's progress ({text!r})")
    except Exception:
        served = driver.execute_async_script(
            "var done = arguments[0]; fetch('/page/patterns/flash.part').then(r => r.text()).then(done, e => done(String(e)));")
        check(False, f"Save and flash ends on both boards ({driver.find_element(By.ID, 'flash').text!r}; served {served!r})")
    check(until(lambda: all(b.get("table_version") == 7 for b in status()["boards"]), 2, "v7"),
          "the daemon's status has the new table on every board")
    accessible(driver, "the patterns page after a flash")
    shot(driver, "pattern-flash", around="flash")

    # A test ring on a chosen board, from the patterns page; stopped on the live view it lands on.
    from selenium.webdriver.support.ui import Select
    Select(driver.find_element(By.ID, "test-board")).select_by_visible_text("bed shaker")
    Select(driver.find_element(By.ID, "test-pattern")).select_by_visible_text("US")
    button(driver, "test-ring").click()
    check(until(lambda: any(c["id"].startswith("test-ring") and c["playing_on"] == ["bed shaker"]
                            for c in status()["calls"]), 2, "test ring"),
          "the test ring plays on the chosen board only")
    button(driver, "stop-all").click()
    check(until(lambda: not status()["calls"], 2, "test ring stopped"), "and Stop all ends it")

    # Setup: the boards, the sources of calls, the history.
    driver.get(BASE + "/page/setup")
    check("bed shaker" in driver.find_element(By.TAG_NAME, "main").text, "the setup page lists the boards")
    button(driver, "run-doctor").click()
    WebDriverWait(driver, 30).until(EC.presence_of_element_located((By.ID, "doctor-findings")))
    found = driver.find_element(By.ID, "doctor-findings").text
    check("daemon" in found and "config" in found, "the setup page runs callalert doctor's checks and lists them")
    accessible(driver, "the setup with the doctor's findings")
    shot(driver, "setup")

    # Reduced motion: a ringing board's motor does not move.
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                           {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    driver.get(BASE + "/page")
    control({"type": "call", "id": "b6", "name": "Frank"})
    WebDriverWait(driver, 2).until(EC.presence_of_element_located((By.CSS_SELECTOR, ".motor.on")))
    animation = driver.execute_script(
        "return getComputedStyle(document.querySelector('.motor.on')).animationName")
    check(animation == "none", f"under prefers-reduced-motion the motor does not move ({animation})")
    control({"type": "hangup", "id": "b6"})
finally:
    driver.quit()

print(f"check-page: {passed} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
