/* JUTNameTab keys and tables (jut_names.h). */
#include "jut_names.h"

#include <string.h>

uint16_t ga_jut_name_key(const char *s)
{
    uint16_t h = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (uint16_t)(h * 3 + (int)(signed char)*p);
    return h;
}

void ga_jut_put_names(ga_buf *b, const char *const *names, uint32_t n)
{
    ga_buf_u16be(b, (uint16_t)n);
    ga_buf_u16be(b, 0xFFFF);
    size_t off = 4 + (size_t)n * 4;
    for (uint32_t i = 0; i < n; i++) {
        const char *nm = names[i] ? names[i] : "";
        ga_buf_u16be(b, ga_jut_name_key(nm));
        ga_buf_u16be(b, (uint16_t)off);
        off += strlen(nm) + 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        const char *nm = names[i] ? names[i] : "";
        ga_buf_put(b, nm, strlen(nm) + 1);
    }
}
