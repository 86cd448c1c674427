#!/usr/bin/env bash
# `make deb`: stages an install under /usr (Tools/scripts/install.sh), adds packaging/debian's control file
# and maintainer scripts, and builds callalert_<version>_<arch>.deb with dpkg-deb into $DEB_DIR.
# Environment: BIN_PATH (the built binaries' folder), DEB_DIR (default .build-deb).
# The version is the binary's (`callalert --version`), plus `+git<commits>.<revision>` when the revision is
# not a release tag, so newer builds sort after older ones.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BIN_PATH:?set BIN_PATH to the folder holding the built callalert}"
DEB_DIR="${DEB_DIR:-.build-deb}"
command -v dpkg-deb >/dev/null || { echo "error: dpkg-deb is missing (apt-get install dpkg)" >&2; exit 1; }

read -r number _ revision < <("$BIN_PATH/callalert" --version | tr -d '()')
version="$number"
if [ "$revision" != "v$number" ] && [ "$revision" != unknown ]; then
  count="$(git rev-list --count HEAD 2>/dev/null || echo 0)"
  version="$number+git$count.${revision//-/.}"
fi
arch="$(dpkg --print-architecture)"

stage="$DEB_DIR/stage"
rm -rf "$stage"
mkdir -p "$stage/DEBIAN"
DESTDIR="$stage" PREFIX=/usr SYSCONFDIR=/etc UDEVRULESDIR=/usr/lib/udev/rules.d \
  ZSHCOMPDIR=/usr/share/zsh/vendor-completions GZIP_MAN=1 Tools/scripts/install.sh install
install -m 0644 LICENSE "$stage/usr/share/doc/callalert/copyright"
gzip -9nf "$stage/usr/share/doc/callalert/CHANGELOG.md"

# Shared libraries the binary needs, by package; the Swift runtime is linked in statically in a release build.
depends=()
missing=()
owner() { dpkg -S "$1" 2>/dev/null | head -n 1 | cut -d: -f1; }
while read -r library; do
  # dpkg knows a library by the path it installed (/lib/… on a merged /usr, where ldd may say /usr/lib/…).
  resolved="$(readlink -f "$library")"
  package="$(owner "$library" || true)"
  [ -n "$package" ] || package="$(owner "$resolved" || true)"
  [ -n "$package" ] || package="$(owner "${resolved#/usr}" || true)"
  if [ -n "$package" ]; then depends+=("$package"); else missing+=("$library"); fi
done < <(ldd "$stage/usr/bin/callalert" | awk '/=> \// { print $3 }')
if [ ${#missing[@]} -gt 0 ]; then
  echo "warning: libraries no package provides, left out of Depends (a debug build links the toolchain's" >&2
  echo "         Swift runtime; BUILD_CONFIG=release links it in): ${missing[*]}" >&2
fi
depends_line="$(printf '%s\n' "${depends[@]}" adduser | sort -u | paste -sd, - | sed 's/,/, /g')"
size="$(du -sk --exclude=DEBIAN "$stage" | cut -f1)"

sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" -e "s/@DEPENDS@/$depends_line/" \
  packaging/debian/control.in >"$stage/DEBIAN/control"
install -m 0755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$stage/DEBIAN/"
install -m 0644 packaging/debian/conffiles "$stage/DEBIAN/"

deb="$DEB_DIR/callalert_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
rm -rf "$stage"
echo "$deb"
