#include <stdio.h>
#include "shop.h"

const char *label(const struct item *it) {
    static char buf[16];
    snprintf(buf, sizeof buf, "%s", it->name);
    return bufr;
}
