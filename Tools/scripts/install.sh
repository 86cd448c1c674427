#!/usr/bin/env bash
# `make install` / `make uninstall` (and `make deb`'s staging): copies a built callalert, its manual pages,
# shell completions, the example config, the systemd units, the udev rule and the sysusers file into
# $DESTDIR$PREFIX/… . The Makefile builds first and passes everything in the environment:
#   BIN_PATH        the folder holding the built `callalert` and `generate-manual` (swift build --show-bin-path)
#   DESTDIR PREFIX BINDIR MANDIR DOCDIR DATADIR SYSCONFDIR SYSTEMDSYSTEMUNITDIR SYSTEMDUSERUNITDIR
#   UDEVRULESDIR SYSUSERSDIR BASHCOMPDIR ZSHCOMPDIR FISHCOMPDIR   (defaults below)
#   GZIP_MAN=1      compress the manual pages (Debian)
#   STRIP=1         strip the installed binary (the Makefile sets it for release builds)
#   MAN_DATE        the pages' date, YYYY-MM-DD (default: the last commit's, so builds are reproducible)
# Usage: install.sh install | uninstall | list  (list: the installed paths, relative to DESTDIR)
set -euo pipefail
cd "$(dirname "$0")/../.."

action="${1:-install}"
DESTDIR="${DESTDIR:-}"
PREFIX="${PREFIX:-/usr/local}"
BINDIR="${BINDIR:-$PREFIX/bin}"
DATADIR="${DATADIR:-$PREFIX/share}"
MANDIR="${MANDIR:-$DATADIR/man}"
DOCDIR="${DOCDIR:-$DATADIR/doc/callalert}"
SYSCONFDIR="${SYSCONFDIR:-/etc}"
SYSTEMDSYSTEMUNITDIR="${SYSTEMDSYSTEMUNITDIR:-$PREFIX/lib/systemd/system}"
SYSTEMDUSERUNITDIR="${SYSTEMDUSERUNITDIR:-$PREFIX/lib/systemd/user}"
UDEVRULESDIR="${UDEVRULESDIR:-$PREFIX/lib/udev/rules.d}"
SYSUSERSDIR="${SYSUSERSDIR:-$PREFIX/lib/sysusers.d}"
BASHCOMPDIR="${BASHCOMPDIR:-$DATADIR/bash-completion/completions}"
ZSHCOMPDIR="${ZSHCOMPDIR:-$DATADIR/zsh/site-functions}"
FISHCOMPDIR="${FISHCOMPDIR:-$DATADIR/fish/vendor_completions.d}"
GZIP_MAN="${GZIP_MAN:-0}"
OS="$(uname -s)"

man_suffix() { [ "$GZIP_MAN" = 1 ] && echo .1.gz || echo .1; }

# The manual pages' names: one per command, `callalert-notify-call.1` (the generator's dots become dashes).
man_pages() {
  local bin="$BIN_PATH/callalert" tmp
  tmp="$(mktemp -d)"
  "$BIN_PATH/generate-manual" "$bin" --multi-page --section 1 --date "$MAN_DATE" --output-directory "$tmp" >/dev/null
  rm -f "$tmp/callalert.help.1"
  echo "$tmp"
}

# Every path install puts down, relative to DESTDIR; uninstall removes exactly these.
installed_paths() {
  echo "$BINDIR/callalert"
  local name
  for name in "${MAN_NAMES[@]}"; do echo "$MANDIR/man1/$name$(man_suffix)"; done
  echo "$BASHCOMPDIR/callalert"
  echo "$ZSHCOMPDIR/_callalert"
  echo "$FISHCOMPDIR/callalert.fish"
  echo "$DOCDIR/config.example.yaml"
  echo "$DOCDIR/README.md"
  echo "$DOCDIR/CHANGELOG.md"
  echo "$DOCDIR/LICENSE"
  if [ "$OS" = Darwin ]; then
    echo "$DATADIR/callalert/org.callalert.callalert.plist"
  else
    echo "$SYSTEMDSYSTEMUNITDIR/callalert.service"
    echo "$SYSTEMDUSERUNITDIR/callalert.service"
    echo "$UDEVRULESDIR/70-callalert.rules"
    echo "$SYSUSERSDIR/callalert.conf"
  fi
}

substitute() { sed -e "s|@BINDIR@|$BINDIR|g" "$1"; }

case "$action" in
  install | list)
    : "${BIN_PATH:?set BIN_PATH to the folder holding the built callalert (swift build --show-bin-path)}"
    [ -x "$BIN_PATH/callalert" ] || { echo "error: $BIN_PATH/callalert is not built" >&2; exit 1; }
    [ -x "$BIN_PATH/generate-manual" ] || { echo "error: $BIN_PATH/generate-manual is not built" >&2; exit 1; }
    MAN_DATE="${MAN_DATE:-$(git log -1 --format=%cs 2>/dev/null || date -u +%Y-%m-%d)}"
    pages="$(man_pages)"
    trap 'rm -rf "$pages"' EXIT
    MAN_NAMES=()
    for page in "$pages"/*.1; do
      name="$(basename "$page" .1)"
      MAN_NAMES+=("${name//./-}")
    done
    if [ "$action" = list ]; then installed_paths; exit 0; fi

    d="$DESTDIR"
    install -d "$d$BINDIR" "$d$MANDIR/man1" "$d$BASHCOMPDIR" "$d$ZSHCOMPDIR" "$d$FISHCOMPDIR" "$d$DOCDIR"
    install -m 0755 "$BIN_PATH/callalert" "$d$BINDIR/callalert"
    # STRIP=1 (release builds): symbol tables off, 108 MB down to 69 MB; Swift's metadata sections stay.
    if [ "${STRIP:-0}" = 1 ]; then strip "$d$BINDIR/callalert"; fi
    for page in "$pages"/*.1; do
      name="$(basename "$page" .1)"
      target="$d$MANDIR/man1/${name//./-}.1"
      # References and titles follow the dashed names: `.Xr callalert-notify 1`.
      # An empty line in a discussion is a paragraph break, which mdoc spells .Pp.
      sed -E -e 's/^$/.Pp/' -e ':a' -e 's/^(\.(Xr|Dt) (callalert|CALLALERT)[A-Za-z-]*)\.([A-Za-z])/\1-\4/' -e 'ta' "$page" >"$target"
      chmod 0644 "$target"
      if [ "$GZIP_MAN" = 1 ]; then gzip -9nf "$target"; fi
    done
    "$BIN_PATH/callalert" --generate-completion-script bash >"$d$BASHCOMPDIR/callalert"
    "$BIN_PATH/callalert" --generate-completion-script zsh >"$d$ZSHCOMPDIR/_callalert"
    "$BIN_PATH/callalert" --generate-completion-script fish >"$d$FISHCOMPDIR/callalert.fish"
    chmod 0644 "$d$BASHCOMPDIR/callalert" "$d$ZSHCOMPDIR/_callalert" "$d$FISHCOMPDIR/callalert.fish"
    install -m 0644 packaging/config.example.yaml README.md CHANGELOG.md LICENSE "$d$DOCDIR/"
    if [ "$OS" = Darwin ]; then
      install -d "$d$DATADIR/callalert"
      substitute packaging/launchd/org.callalert.callalert.plist.in >"$d$DATADIR/callalert/org.callalert.callalert.plist"
    else
      install -d "$d$SYSTEMDSYSTEMUNITDIR" "$d$SYSTEMDUSERUNITDIR" "$d$UDEVRULESDIR" "$d$SYSUSERSDIR"
      substitute packaging/systemd/callalert.service.in >"$d$SYSTEMDSYSTEMUNITDIR/callalert.service"
      substitute packaging/systemd/callalert-user.service.in >"$d$SYSTEMDUSERUNITDIR/callalert.service"
      chmod 0644 "$d$SYSTEMDSYSTEMUNITDIR/callalert.service" "$d$SYSTEMDUSERUNITDIR/callalert.service"
      install -m 0644 packaging/udev/70-callalert.rules "$d$UDEVRULESDIR/70-callalert.rules"
      install -m 0644 packaging/sysusers/callalert.conf "$d$SYSUSERSDIR/callalert.conf"
    fi
    # The system service's config: the example, all commented out; never replaces an existing one. Skipped by
    # an install as a user (PREFIX=$HOME/.local), who cannot write /etc and needs no system service.
    if [ -z "$d" ] && [ ! -w "$SYSCONFDIR" ]; then
      echo "note: $SYSCONFDIR is not writable: no $SYSCONFDIR/callalert/config.yaml (only the system service reads it)"
    elif [ ! -e "$d$SYSCONFDIR/callalert/config.yaml" ]; then
      install -d "$d$SYSCONFDIR/callalert"
      install -m 0644 packaging/config.example.yaml "$d$SYSCONFDIR/callalert/config.yaml"
    fi
    if [ -z "$d" ]; then
      echo "installed callalert $("$BINDIR/callalert" --version) in $PREFIX"
      if [ "$OS" != Darwin ]; then
        case "$UDEVRULESDIR" in
          /etc/udev/rules.d | /usr/lib/udev/rules.d | /usr/local/lib/udev/rules.d | /lib/udev/rules.d) ;;
          *) echo "note: udev does not read $UDEVRULESDIR: sudo cp $UDEVRULESDIR/70-callalert.rules /etc/udev/rules.d/" ;;
        esac
        echo "next: sudo udevadm control --reload && sudo udevadm trigger --subsystem-match=tty --subsystem-match=hidraw   (board and light access)"
        echo "      systemctl --user daemon-reload && systemctl --user enable --now callalert   (your service)"
        echo "  or: sudo systemd-sysusers && sudo systemctl daemon-reload && sudo systemctl enable --now callalert"
        echo "then: callalert doctor"
      fi
    fi
    ;;
  uninstall)
    # The paths do not depend on the build, except the manual pages: remove every callalert page.
    MAN_NAMES=()
    GZIP_MAN=0
    while IFS= read -r path; do rm -f "$DESTDIR$path"; done < <(installed_paths)
    rm -f "$DESTDIR$MANDIR"/man1/callalert.1 "$DESTDIR$MANDIR"/man1/callalert-*.1 "$DESTDIR$MANDIR"/man1/callalert*.1.gz
    rmdir "$DESTDIR$DOCDIR" 2>/dev/null || true
    if [ "$OS" = Darwin ]; then rmdir "$DESTDIR$DATADIR/callalert" 2>/dev/null || true; fi
    # $SYSCONFDIR/callalert/config.yaml is the user's: left alone, like the history.
    echo "uninstalled callalert from ${DESTDIR}$PREFIX (kept $SYSCONFDIR/callalert/config.yaml and any history)"
    ;;
  *)
    echo "usage: $0 install | uninstall | list" >&2
    exit 2
    ;;
esac
