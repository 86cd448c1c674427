#!/usr/bin/env python3
"""Prints the reference reports CallAlertLights' tests compare with, built by PyPI busylight-core (an
independent implementation that builds reports without a device), one per line:

    <kind> <command> <numbers...> = <hex of the bytes hidapi is handed, report id first>

busylight-core hands Linux's hidapi the report without a leading report id for the devices that number none
(Kuando, Luxafor); the kernel would then take the first byte for one. CallAlert passes report id 0 first, as
hidapi documents, so this script prefixes 00 for those two, and pads Luxafor's shorter reports with zeros to
the device's eight bytes. Where busylight-core's convenience method would change a value (Kuando's jump()
masks the whole-byte ringtone constant to four bits and the volume to two), the step's bit fields are set
directly: the reference is busylight-core's layout of the fields and its checksum.

Run: python3 Tools/scripts/light-reports-reference.py > Tests/CallAlertLightsTests/Fixtures/busylight-core-reports.txt
"""

from busylight_core.vendors.embrava.implementation import BlynclightState
from busylight_core.vendors.kuando.implementation import State as KuandoState
from busylight_core.vendors.kuando.implementation.enums import OpCode
from busylight_core.vendors.luxafor.implementation import Command as LuxaforCommand
from busylight_core.vendors.luxafor.implementation import State as LuxaforState
from busylight_core.vendors.thingm.implementation import Action, Report
from busylight_core.vendors.thingm.implementation import State as Blink1State

COLORS = [(0, 0, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255), (255, 96, 0), (1, 2, 3), (51, 102, 153),
          (128, 64, 200), (254, 253, 252)]
# Kuando's ringtone codes (the 4-bit field) and CallAlert's names for them.
RINGTONES = {"off": 0, "openOffice": 1, "quiet": 2, "funky": 3, "fairyTale": 4, "kuandoTrain": 5,
             "telephoneNordic": 6, "telephoneOriginal": 7, "pickMeUp": 8, "buzz": 11}


def line(words, data):
    print(" ".join(str(w) for w in words), "=", bytes(data).hex())


def kuando(step_setup):
    state = KuandoState()
    step_setup(state.steps[0])
    return bytes([0]) + bytes(state)


def kuando_cases():
    for r, g, b in COLORS:
        line(["kuando", "show", r, g, b], kuando(lambda s: s.jump((r, g, b))))
    for name, code in RINGTONES.items():
        for volume in range(8):
            def ring(step, code=code, volume=volume):
                step.jump((255, 0, 0))
                step.update = 1
                step.ringtone = code
                step.volume = volume
            line(["kuando", "ring", 255, 0, 0, name, volume], kuando(ring))
    for r, g, b in COLORS[:4]:
        def quiet_ring(step, r=r, g=g, b=b):
            step.jump((r, g, b))
            step.update = 1
            step.ringtone = RINGTONES["telephoneNordic"]
            step.volume = 7
        line(["kuando", "ring", r, g, b, "telephoneNordic", 7], kuando(quiet_ring))
    for seconds in range(16):
        line(["kuando", "keepalive", seconds], kuando(lambda s: s.keep_alive(seconds)))

    def off(step):
        step.jump((0, 0, 0))
        step.update = 1
        step.ringtone = 0
        step.volume = 0
    line(["kuando", "off"], kuando(off))
    assert OpCode.KeepAlive == 8


def blink1_cases():
    for r, g, b in COLORS:
        state = Blink1State()
        state.fade_to_color((r, g, b), fade_ms=10, leds=0)  # the field holds tens of ms, as blink(1) reads it
        line(["blink1", "fade", r, g, b, 10, 0], bytes(state))
        state = Blink1State()
        state.clear()
        state.report = Report.One
        state.action = Action.SetColor
        state.color = (r, g, b)
        line(["blink1", "set", r, g, b], bytes(state))
    for centiseconds, led in [(0, 1), (100, 2), (300, 0), (65535, 0)]:
        state = Blink1State()
        state.fade_to_color((9, 8, 7), fade_ms=centiseconds, leds=led)
        line(["blink1", "fade", 9, 8, 7, centiseconds, led], bytes(state))
    for on, start, end, count in [(1, 0, 15, 0), (0, 0, 0, 0), (1, 2, 5, 3)]:
        state = Blink1State()
        state.play_loop(on, start, end, count)
        line(["blink1", "play", on, start, end, count], bytes(state))
    for on, centiseconds, stay, start, end in [(1, 300, 0, 0, 0), (0, 0, 0, 0, 0), (1, 1500, 1, 3, 7), (1, 65535, 0, 0, 0)]:
        state = Blink1State()
        state.clear()
        state.report = Report.One
        state.action = Action.ServerTickle
        state.red = on  # the tickle's bytes sit where a colour command's do: on, time high, time low
        state.green = centiseconds >> 8
        state.blue = centiseconds & 0xFF
        state[16:24] = stay
        state[8:16] = start
        state[0:8] = end
        line(["blink1", "tickle", on, centiseconds, stay, start, end], bytes(state))


def luxafor_cases():
    for r, g, b in COLORS:
        state = LuxaforState()
        state.color = (r, g, b)
        data = bytes([0]) + bytes(state)
        line(["luxafor", "color", r, g, b], data + bytes(9 - len(data)))
        state = LuxaforState()
        state.command = LuxaforCommand.Fade
        state.color = (r, g, b)
        state.fade = 20
        data = bytes([0]) + bytes(state)
        line(["luxafor", "fade", r, g, b, 20], data + bytes(9 - len(data)))


def embrava_cases():
    for r, g, b in COLORS:
        state = BlynclightState()
        state.reset()
        state.red, state.green, state.blue = r, g, b
        state.off = (r, g, b) == (0, 0, 0)
        line(["embrava", "show", r, g, b], bytes([0, *bytes(state), 0xFF, 0x22]))
    for speed in (1, 2, 4):
        state = BlynclightState()
        state.reset()
        state.red, state.green, state.blue = 10, 20, 30
        state.off = False
        state.flash = True
        state.speed = speed
        line(["embrava", "flash", 10, 20, 30, speed], bytes([0, *bytes(state), 0xFF, 0x22]))
    state = BlynclightState()
    state.reset()
    state.red, state.green, state.blue = 200, 100, 50
    state.off = False
    state.dim = True
    line(["embrava", "dim", 200, 100, 50], bytes([0, *bytes(state), 0xFF, 0x22]))


kuando_cases()
blink1_cases()
luxafor_cases()
embrava_cases()
