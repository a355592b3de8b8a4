/* The floor of benches/mcp.sh: a stdio "MCP server" that does no work at all, so that timing
 * the driver against it shows what the driver, the pipes and the scheduler cost by
 * themselves. It answers `initialize` and every other request with a canned result carrying
 * the request's id, and ignores notifications (lines without an id). Not an MCP server: it
 * checks nothing. Built and run by benches/mcp.sh only.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The number after the line's first "id" key; 0 when it has none. */
static int request_id(const char *line, size_t len, long *id) {
    const char *end = line + len;
    const char *key = memmem(line, len, "\"id\"", 4);
    if (key == NULL) {
        return 0;
    }
    const char *p = key + 4;
    while (p < end && (*p == ' ' || *p == ':')) {
        p++;
    }
    if (p == end || *p < '0' || *p > '9') {
        return 0;
    }
    *id = strtol(p, NULL, 10);
    return 1;
}

static void answer(const char *line, size_t len) {
    long id;
    if (!request_id(line, len, &id)) {
        return;
    }
    char out[512];
    int n;
    if (memmem(line, len, "\"initialize\"", 12) != NULL) {
        n = snprintf(out, sizeof out,
                     "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"result\":{\"protocolVersion\":\"2025-06-18\","
                     "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"null\",\"version\":\"1\"}}}\n",
                     id);
    } else {
        n = snprintf(out, sizeof out,
                     "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"result\":{\"content\":[{\"type\":\"text\","
                     "\"text\":\"hello\"}],\"isError\":false}}\n",
                     id);
    }
    for (int done = 0; done < n;) {
        ssize_t w = write(1, out + done, (size_t)(n - done));
        if (w <= 0) {
            exit(1);
        }
        done += (int)w;
    }
}

int main(void) {
    static char buf[1 << 16];
    size_t have = 0;
    for (;;) {
        ssize_t r = read(0, buf + have, sizeof buf - have);
        if (r <= 0) {
            return 0;
        }
        have += (size_t)r;
        char *start = buf;
        char *newline;
        while ((newline = memchr(start, '\n', have - (size_t)(start - buf))) != NULL) {
            answer(start, (size_t)(newline - start));
            start = newline + 1;
        }
        have -= (size_t)(start - buf);
        memmove(buf, start, have);
        if (have == sizeof buf) {
            have = 0; /* a line longer than the buffer: dropped */
        }
    }
}
