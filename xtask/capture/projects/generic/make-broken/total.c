#include "shop.h"

int total(const struct item *items, int n) {
    int sum = 0;
    for (int i = 0; i < n; i++)
        sum += items[i].cost;
    return sum;
}
