#!/usr/bin/env bash
# Compiles the portable modules as Embedded Swift for a Cortex-M4 (armv7em-none-none-eabi) with
# -Werror EmbeddedRestrictions: proof that the codec and the board core stay firmware-ready.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.build-firmware-check}
mkdir -p "$out"
flags=(-target armv7em-none-none-eabi -enable-experimental-feature Embedded -wmo -Osize -parse-as-library
  -Xfrontend -function-sections -Xfrontend -disable-stack-protector -Xcc -mfloat-abi=soft -Xcc -mcpu=cortex-m4
  -Werror EmbeddedRestrictions -I "$out")
for module in CallAlertProtocol CallAlertBoardCore; do
  sources=(Sources/$module/*.swift)
  [ -e "${sources[0]}" ] || continue
  swiftc "${flags[@]}" -module-name "$module" -emit-module -emit-module-path "$out/$module.swiftmodule" \
    -c -o "$out/$module.o" "${sources[@]}"
  echo "firmware-check: $module compiles as Embedded Swift for armv7em ($(stat -c %s "$out/$module.o") bytes of object code)"
done
