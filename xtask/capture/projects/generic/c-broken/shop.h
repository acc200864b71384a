#ifndef SHOP_H
#define SHOP_H

struct item {
    const char *name;
    int price;
};

int total(const struct item *items, int n);
const char *label(const struct item *it);

#endif
