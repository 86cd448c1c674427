// sofia-sip's user agent (NUA), found with pkg-config `sofia-sip-ua`. Swift never calls it directly: its
// calls take variadic tag lists, so CCallAlertSIP wraps the few it needs in plain C functions.
#include <sofia-sip/nua.h>
#include <sofia-sip/nua_tag.h>
#include <sofia-sip/sip_header.h>
