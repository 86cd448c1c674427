#!/usr/bin/env python3
"""The page's figures, for `make bench`: its weight (the live view's HTML, style sheet and script, as sent) and
its time to first render in chromium (first contentful paint, the median of 5 loads), and a call's time from the
control socket to the alert on the page (median of 5). Figures only: it fails only when it cannot measure.
Usage: bench-page.py BASE_URL SOCKET OUTPUT_JSON
"""
import json
import socket
import statistics
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

BASE, SOCKET, OUTPUT = sys.argv[1], sys.argv[2], sys.argv[3]


def control(request):
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


def size(path):
    with urllib.request.urlopen(BASE + path, timeout=5) as response:
        return len(response.read())


weight = {"html": size("/page"), "css": size("/page/style.css"), "js": size("/page/app.js")}
options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1200,1000"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
paints, alerts = [], []
try:
    for _ in range(5):
        driver.get(BASE + "/page")
        WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.CSS_SELECTOR, "body[data-events=open]")))
        paint = driver.execute_script(
            "var p = performance.getEntriesByName('first-contentful-paint')[0]; return p ? p.startTime : null")
        if paint is not None:
            paints.append(paint)
    for number in range(5):
        started = time.monotonic()
        control({"type": "call", "id": f"bench-{number}", "name": "Bench"})
        WebDriverWait(driver, 5, poll_frequency=0.005).until(
            EC.presence_of_element_located((By.CSS_SELECTOR, "[role=alert]")))
        alerts.append((time.monotonic() - started) * 1000)
        control({"type": "hangup", "id": f"bench-{number}"})
        WebDriverWait(driver, 5, poll_frequency=0.005).until(
            EC.invisibility_of_element_located((By.CSS_SELECTOR, "[role=alert]")))
finally:
    driver.quit()

figures = {
    "weight_bytes": dict(weight, total=sum(weight.values())),
    "first_contentful_paint_ms": {"median": statistics.median(paints), "all": paints} if paints else None,
    "call_to_alert_ms": {"median": statistics.median(alerts), "max": max(alerts)},
}
with open(OUTPUT, "w") as file:
    json.dump(figures, file, indent=2)
print(f"page: {figures['weight_bytes']['total']} bytes (HTML {weight['html']}, CSS {weight['css']}, "
      f"JS {weight['js']}); first contentful paint median "
      f"{figures['first_contentful_paint_ms']['median'] if paints else float('nan'):.0f} ms; "
      f"socket call to alert median {figures['call_to_alert_ms']['median']:.0f} ms, "
      f"max {figures['call_to_alert_ms']['max']:.0f} ms ({OUTPUT})")
