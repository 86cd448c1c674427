#ifndef CALLALERT_CMOSQUITTO_SHIM_H
#define CALLALERT_CMOSQUITTO_SHIM_H

// libmosquitto (Debian libmosquitto-dev), the Eclipse Mosquitto client library: CallAlertMQTT's client.
#include <mosquitto.h>

#endif
