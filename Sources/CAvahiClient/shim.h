// libavahi-client, for the Avahi backend of castsim's mDNS advertising (package trait
// "Avahi"; Debian: libavahi-client-dev).
#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-common/address.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
