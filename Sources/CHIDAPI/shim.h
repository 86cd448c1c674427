// hidapi's hidraw backend (Debian: libhidapi-dev; pkg-config hidapi-hidraw), for USB presence lights.
#include <hidapi.h>
