#!/usr/bin/env bash
# Tests `make install`, `make uninstall` and `make deb` without touching the machine: everything goes into a
# temporary DESTDIR. Checks the install tree file by file, renders every man page, parses the completions,
# verifies the units with `systemd-analyze verify`, builds the package and checks its contents, runs its
# postinst against stub commands, and runs `callalert doctor` on a broken setup (bad config, no daemon,
# an unreadable port). Uses a debug build (BUILD_CONFIG=debug, the default here): a release build takes
# minutes on a small machine and installs the same files.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_CONFIG="${BUILD_CONFIG:-debug}"
SWIFT="${SWIFT:-swift}"
started=$SECONDS

work="$(mktemp -d /tmp/callalert-test-install.XXXXXX)"
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
skip() { echo "skip: $*"; }

Tools/scripts/write-revision.sh
"$SWIFT" build -c "$BUILD_CONFIG" --product callalert >/dev/null
"$SWIFT" build -c "$BUILD_CONFIG" --product generate-manual >/dev/null
BIN_PATH="$("$SWIFT" build -c "$BUILD_CONFIG" --show-bin-path)"
export BIN_PATH

# --- make install DESTDIR=… ------------------------------------------------------------------------------
dest="$work/dest"
DESTDIR="$dest" PREFIX=/usr/local Tools/scripts/install.sh install >/dev/null
expected=(
  etc/callalert/config.yaml
  usr/local/bin/callalert
  usr/local/lib/systemd/system/callalert.service
  usr/local/lib/systemd/user/callalert.service
  usr/local/lib/sysusers.d/callalert.conf
  usr/local/lib/udev/rules.d/70-callalert.rules
  usr/local/share/bash-completion/completions/callalert
  usr/local/share/doc/callalert/CHANGELOG.md
  usr/local/share/doc/callalert/LICENSE
  usr/local/share/doc/callalert/README.md
  usr/local/share/doc/callalert/config.example.yaml
  usr/local/share/fish/vendor_completions.d/callalert.fish
  usr/local/share/zsh/site-functions/_callalert
)
# One man page per command and subcommand, as the binary lists them (`help` is not a command of its own).
command -v python3 >/dev/null || skip "python3 not installed: man pages checked for the top commands only"
commands="$("$BIN_PATH/callalert" --experimental-dump-help | python3 -c '
import json, sys
def walk(command, prefix):
    name = prefix + [command["commandName"]]
    if name[-1] != "help":
        print("-".join(name))
    for sub in command.get("subcommands", []):
        walk(sub, name)
walk(json.load(sys.stdin)["command"], [])' 2>/dev/null || true)"
if [ -z "$commands" ]; then
  # Without python3: the pages that must be there; the tree comparison then ignores the other pages.
  commands="callalert callalert-run callalert-doctor callalert-notify callalert-notify-call callalert-status"
  partial_man=1
fi
for command in $commands; do expected+=("usr/local/share/man/man1/$command.1"); done
actual="$(cd "$dest" && find . -type f | sed 's|^\./||' | sort)"
if [ "${partial_man:-0}" = 1 ]; then
  actual="$(echo "$actual" | grep -v -x -F -f <(printf 'usr/local/share/man/man1/%s.1\n' $commands) | grep -v '/man1/' || true)"
  actual="$(printf '%s\n' "$actual" $(printf 'usr/local/share/man/man1/%s.1\n' $commands) | sort)"
fi
wanted="$(printf '%s\n' "${expected[@]}" | sort)"
if [ "$actual" = "$wanted" ]; then
  pass "install tree: ${#expected[@]} files, $(echo "$commands" | wc -w) man pages"
else
  fail "install tree differs (< expected, > installed):"
  diff <(echo "$wanted") <(echo "$actual") >&2 || true
fi
[ -x "$dest/usr/local/bin/callalert" ] || fail "the binary is not executable"
version="$("$dest/usr/local/bin/callalert" --version)"
case "$version" in
  *"(git unknown)") fail "--version has no revision: $version" ;;
  *"(git "*) pass "--version: $version" ;;
  *) fail "--version: $version" ;;
esac
for unit in "$dest"/usr/local/lib/systemd/*/callalert.service; do
  grep -q '^ExecStart=/usr/local/bin/callalert run ' "$unit" || fail "$unit: ExecStart is not /usr/local/bin/callalert"
  if grep -q '@[A-Z]*@' "$unit"; then fail "$unit: placeholder left"; fi
done
grep -q '^Type=notify' "$dest/usr/local/lib/systemd/system/callalert.service" || fail "system unit is not Type=notify"

# Every man page renders without a warning, and no reference is left in the generator's dotted names.
man_problems=0
command -v groff >/dev/null || skip "groff not installed (apt-get install groff-base): man pages not rendered"
for page in "$dest"/usr/local/share/man/man1/*.1; do
  out=""
  if command -v groff >/dev/null; then out="$(groff -mandoc -Tutf8 -ww -z "$page" 2>&1 || echo "groff failed")"; fi
  if [ -n "$out" ]; then fail "$(basename "$page"): $out"; man_problems=1; fi
  if grep -Eq '^\.Xr callalert\.' "$page"; then fail "$(basename "$page"): dotted .Xr reference"; man_problems=1; fi
done
grep -q '^\.Xr callalert-notify-call 1' "$dest/usr/local/share/man/man1/callalert-notify.1" ||
  fail "callalert-notify.1 does not refer to callalert-notify-call(1)"
grep -q 'doctor' "$dest/usr/local/share/man/man1/callalert-doctor.1" || fail "callalert-doctor.1 is empty"
[ $man_problems = 0 ] && pass "man pages render (groff -ww)"

# Completions parse in their shells (those installed).
bash -n "$dest/usr/local/share/bash-completion/completions/callalert" && pass "bash completion parses" ||
  fail "bash completion does not parse"
grep -q 'doctor' "$dest/usr/local/share/bash-completion/completions/callalert" || fail "bash completion lacks doctor"
if command -v zsh >/dev/null; then
  zsh -n "$dest/usr/local/share/zsh/site-functions/_callalert" && pass "zsh completion parses" || fail "zsh completion"
else skip "zsh not installed"; fi
if command -v fish >/dev/null; then
  fish -n "$dest/usr/local/share/fish/vendor_completions.d/callalert.fish" && pass "fish completion parses" ||
    fail "fish completion"
else skip "fish not installed"; fi

# The launchd plist (installed on macOS only) is a valid property list.
if command -v python3 >/dev/null; then
  sed "s|@BINDIR@|/usr/local/bin|" packaging/launchd/org.callalert.callalert.plist.in >"$work/agent.plist"
  python3 -c 'import plistlib, sys; p = plistlib.load(open(sys.argv[1], "rb")); assert p["ProgramArguments"][:2] == ["/usr/local/bin/callalert", "run"]' \
    "$work/agent.plist" && pass "launchd plist parses" || fail "launchd plist"
else skip "python3 not installed: launchd plist not parsed"; fi

# --- systemd-analyze verify ---------------------------------------------------------------------------------
if command -v systemd-analyze >/dev/null; then
  units="$work/units"
  mkdir -p "$units/system" "$units/user"
  # verify checks that ExecStart's binary exists: point it at the staged one.
  sed "s|/usr/local/bin/callalert|$dest/usr/local/bin/callalert|" \
    "$dest/usr/local/lib/systemd/system/callalert.service" >"$units/system/callalert.service"
  sed "s|/usr/local/bin/callalert|$dest/usr/local/bin/callalert|" \
    "$dest/usr/local/lib/systemd/user/callalert.service" >"$units/user/callalert.service"
  for unit in "$units/system/callalert.service" "$units/user/callalert.service"; do
    # Only findings about our unit count: verify also loads the host's own units (dependencies).
    out="$(SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "$unit" 2>&1 || true)"
    ours="$(echo "$out" | grep -F "callalert" | grep -v 'Failed to resolve user\|Failed to resolve group' || true)"
    if [ -n "$ours" ]; then fail "systemd-analyze verify $unit:"$'\n'"$ours"; else pass "systemd-analyze verify $(basename "$(dirname "$unit")") unit"; fi
  done
  out="$(systemd-analyze security --offline=true --no-pager "$units/system/callalert.service" 2>/dev/null | tail -n 1 || true)"
  [ -n "$out" ] && echo "   $out"
else
  skip "systemd-analyze not installed (Debian: apt-get install systemd): units not verified"
fi

# --- udev rule: syntax, where udevadm can check it ------------------------------------------------------------
if command -v udevadm >/dev/null && udevadm verify --help >/dev/null 2>&1; then
  udevadm verify --no-style "$dest/usr/local/lib/udev/rules.d/70-callalert.rules" >/dev/null &&
    pass "udevadm verify" || fail "udevadm verify 70-callalert.rules"
else
  skip "udevadm verify unavailable (systemd < 254): the rule is matched by CallAlertDoctorTests' udev matcher"
fi

# --- make uninstall -------------------------------------------------------------------------------------------
DESTDIR="$dest" PREFIX=/usr/local Tools/scripts/install.sh uninstall >/dev/null
left="$(cd "$dest" && find . -type f | sed 's|^\./||' | sort)"
if [ "$left" = "etc/callalert/config.yaml" ]; then pass "uninstall removes everything but the config"; else
  fail "uninstall left:"$'\n'"$left"
fi

# --- make deb -------------------------------------------------------------------------------------------------
if command -v dpkg-deb >/dev/null; then
  deb="$(DEB_DIR="$work/deb" Tools/scripts/make-deb.sh 2>"$work/deb.log")" || { cat "$work/deb.log" >&2; fail "make-deb"; }
  if [ -f "$deb" ]; then
    listing="$(dpkg-deb -c "$deb")"
    for path in ./usr/bin/callalert ./usr/lib/systemd/system/callalert.service ./usr/lib/systemd/user/callalert.service \
      ./usr/lib/udev/rules.d/70-callalert.rules ./usr/share/man/man1/callalert-doctor.1.gz \
      ./usr/share/man/man1/callalert-run.1.gz ./etc/callalert/config.yaml ./usr/share/doc/callalert/copyright \
      ./usr/share/bash-completion/completions/callalert ./usr/share/zsh/vendor-completions/_callalert; do
      echo "$listing" | grep -q " $path\$" || fail "the package lacks $path"
    done
    echo "$listing" | grep -v ' root/root ' | grep -q . && fail "files in the package not owned by root"
    control="$(dpkg-deb -f "$deb")"
    for field in Package Version Architecture Maintainer Depends Description; do
      echo "$control" | grep -q "^$field: ." || fail "control lacks $field"
    done
    echo "$control" | grep -q '^Depends:.*adduser' || fail "Depends lacks adduser (postinst uses it)"
    [ "$(dpkg-deb -f "$deb" Package)" = callalert ] || fail "package name"
    dpkg-deb -e "$deb" "$work/control"
    [ "$(cat "$work/control/conffiles")" = /etc/callalert/config.yaml ] || fail "conffiles"
    dpkg-deb -x "$deb" "$work/root"
    [ -x "$work/root/usr/bin/callalert" ] || fail "extracted binary"
    grep -q '^ExecStart=/usr/bin/callalert run ' "$work/root/usr/lib/systemd/system/callalert.service" ||
      fail "packaged unit's ExecStart is not /usr/bin/callalert"
    pass "package $(basename "$deb"): $(echo "$listing" | grep -c '^-') files, depends $(dpkg-deb -f "$deb" Depends)"

    # The maintainer scripts: POSIX sh; shellcheck when it is here; postinst run against stub commands.
    for script in postinst prerm postrm; do sh -n "$work/control/$script" || fail "$script: syntax"; done
    if command -v shellcheck >/dev/null; then
      shellcheck -s sh "$work/control/postinst" "$work/control/prerm" "$work/control/postrm" && pass "shellcheck" ||
        fail "shellcheck maintainer scripts"
    else
      skip "shellcheck not installed: maintainer scripts checked with sh -n only"
    fi
    stubs="$work/stubs"
    mkdir -p "$stubs"
    for tool in adduser udevadm systemctl deluser; do
      printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$tool" "$work/calls" >"$stubs/$tool"
      chmod +x "$stubs/$tool"
    done
    # getent knows the dialout group and no callalert user yet.
    printf '#!/bin/sh\nif [ "$2" = dialout ]; then echo "dialout:x:20:"; exit 0; fi\nexit 2\n' >"$stubs/getent"
    chmod +x "$stubs/getent"
    PATH="$stubs:/usr/bin:/bin" sh "$work/control/postinst" configure || fail "postinst configure failed"
    grep -q '^adduser --system --group --home /var/lib/callalert --no-create-home .* callalert$' "$work/calls" ||
      fail "postinst did not create the callalert system user: $(cat "$work/calls")"
    grep -q '^adduser callalert dialout$' "$work/calls" || fail "postinst did not add callalert to dialout"
    pass "postinst creates the user (stubbed adduser)"
  fi
else
  skip "dpkg-deb not installed: no package built"
fi

# --- callalert doctor on a broken setup ---------------------------------------------------------------------
broken="$work/broken"
mkdir -p "$broken"
printf 'cap: 45s\nboards:\n  - name: desk\n    port: %s\nhistory:\n  path: %s\n' "$broken/ttyACM9" "$broken/h.sqlite" \
  >"$broken/config.yaml"
set +e
"$BIN_PATH/callalert" doctor --config "$broken/config.yaml" --socket "$broken/none.sock" >"$broken/out.txt"
status=$?
"$BIN_PATH/callalert" doctor --json --config "$broken/config.yaml" --socket "$broken/none.sock" >"$broken/out.json"
set -e
[ $status = 1 ] || fail "doctor on a broken setup exited $status, not 1"
if grep -q "^ERROR  config: $broken/config.yaml does not load (1 problem(s)): $broken/config.yaml:1:6: cap:" "$broken/out.txt" &&
  grep -q "^ERROR  daemon: not running: nothing listens on $broken/none.sock" "$broken/out.txt" &&
  [ "$(grep -c '^ERROR' "$broken/out.txt")" = "$(grep -c '^       fix: ' <(grep -A1 '^ERROR' "$broken/out.txt"))" ] &&
  grep -q '"healthy" : false' "$broken/out.json"; then
  pass "doctor: bad config, no daemon (each error with its fix; --json)"
else
  fail "doctor's findings on a broken setup:"$'\n'"$(cat "$broken/out.txt")"
fi
# An unreadable port, as a user who is not root (root may open anything).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
  touch "$broken/ttyACM9"
  chmod 0660 "$broken/ttyACM9"
  chmod 0755 "$work" "$broken"
  printf 'boards:\n  - name: desk\n    port: %s\nhistory:\n  path: %s\n' "$broken/ttyACM9" "$broken/h.sqlite" \
    >"$broken/config.yaml"
  chmod 0644 "$broken/config.yaml"
  set +e
  setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/nonexistent \
    "$BIN_PATH/callalert" doctor --config "$broken/config.yaml" --socket "$broken/none.sock" >"$broken/out.txt" 2>&1
  set -e
  if grep -q "ERROR  board desk: access: $broken/ttyACM9 (group root, mode 0660) is not readable and writable by nobody" \
    "$broken/out.txt" && grep -q 'fix: .*usermod -aG root nobody' "$broken/out.txt"; then
    pass "doctor: an unreadable port, as nobody"
  else
    fail "doctor on an unreadable port:"$'\n'"$(cat "$broken/out.txt")"
  fi
else
  skip "not root (or no setpriv): the unreadable port is covered by CallAlertDoctorTests"
fi

echo "test-install: $((SECONDS - started)) s, $failures failure(s)"
[ $failures = 0 ]
