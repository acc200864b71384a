#include <stdio.h>
#include "shop.h"

int main(void) {
    struct item items[2] = {{"apple", 3}, {"pear", 4}};
    printf("%d\n", total(items, 2));
    return 0;
}
