// SPDX-License-Identifier: MIT
/*
 * neuronprof exporter: publishing, both ways out: the textfile replaced
 * atomically at every publication (prom.h) and the HTTP /metrics endpoint
 * served by libmicrohttpd, one exposition rendered per publication; and
 * the signals that end it.
 */
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "analysis/summary.h"
#include "live.h"
#include "exporter.h"
#include "util/util.h"
#include "util/prom.h"

volatile sig_atomic_t exporter_quit;

void exporter_on_quit(int sig)
{
	(void)sig;
	exporter_quit = 1;
}

bool exporter_stop(void *ctx)
{
	(void)ctx;
	return exporter_quit;
}

static enum MHD_Result serve(void *cls, struct MHD_Connection *conn, const char *url,
			     const char *method, const char *version, const char *upload_data,
			     size_t *upload_size, void **con_cls)
{
	static const char not_found[] = "Not Found: the metrics are at /metrics\n";
	static const char not_allowed[] = "Method Not Allowed\n";
	struct exporter *x = cls;
	struct MHD_Response *r;
	unsigned int status = MHD_HTTP_OK;
	enum MHD_Result ret;

	(void)version;
	(void)upload_data;
	(void)upload_size;
	(void)con_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
		r = MHD_create_response_from_buffer(sizeof(not_allowed) - 1, (void *)not_allowed,
						    MHD_RESPMEM_PERSISTENT);
		if (r)
			MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	} else if (strcmp(url, "/metrics")) {
		status = MHD_HTTP_NOT_FOUND;
		r = MHD_create_response_from_buffer(sizeof(not_found) - 1, (void *)not_found,
						    MHD_RESPMEM_PERSISTENT);
	} else {
		pthread_mutex_lock(&x->lock);
		r = MHD_create_response_from_buffer(x->body_len, x->body, MHD_RESPMEM_MUST_COPY);
		pthread_mutex_unlock(&x->lock);
		if (r)
			MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
						"text/plain; version=0.0.4; charset=utf-8");
	}
	if (!r)
		return MHD_NO;
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

/*
 * exporter_parse_listen() - "ADDR:PORT" ("[ADDR]:PORT" for IPv6; numeric only) into
 * @ss. Return: 0, or -1 after the usage error.
 */
int exporter_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *sl)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(s, ':'), *port;
	size_t hl;
	uint64_t p;
	int rc;

	if (!colon || colon == s || !colon[1])
		return usage_error("--listen: '%s' is not ADDR:PORT (e.g. 127.0.0.1:9474) or none", s);
	port = colon + 1;
	hl = (size_t)(colon - s);
	if (s[0] == '[') {
		if (hl < 3 || s[hl - 1] != ']')
			return usage_error("--listen: '%s' is not [ADDR]:PORT", s);
		s++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return usage_error("--listen: '%.*s' is not a numeric address", (int)hl, s);
	memcpy(host, s, hl);
	host[hl] = '\0';
	if (parse_u64("--listen port", port, 1, 65535, false, &p))
		return -1;
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc || !res)
		return usage_error("--listen: '%s' is not a numeric IPv4 or IPv6 address", host);
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*sl = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/* The listening socket, then the server on it. Return: 0 or EXIT_FAIL. */
int exporter_http_start(struct exporter *x, const char *listen_at,
		      const struct sockaddr_storage *ss, socklen_t sl)
{
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return fail("--listen %s: %s", listen_at, strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)ss, sl) || listen(fd, 64)) {
		int err = errno;

		close(fd);
		return fail("cannot listen on %s: %s", listen_at, strerror(err));
	}
	x->mhd = MHD_start_daemon(MHD_USE_POLL_INTERNAL_THREAD |
				  (ss->ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				  0, NULL, NULL, serve, x, MHD_OPTION_LISTEN_SOCKET, fd,
				  MHD_OPTION_CONNECTION_LIMIT, 64U,
				  MHD_OPTION_CONNECTION_TIMEOUT, 10U, MHD_OPTION_END);
	if (!x->mhd) {
		close(fd);
		return fail("cannot start the HTTP server on %s", listen_at);
	}
	return 0;
}

/* Render the metrics once, then write the textfile and hand the HTTP server its copy. */
int exporter_publish(struct exporter *x)
{
	char *buf;
	size_t len;

	x->publications++;
	x->prom.s[x->s_publications].u = x->publications;
	if (prom_render(&x->prom, &buf, &len))
		return fail("out of memory");
	if (x->textfile) {
		char why[512];

		if (textfile_write(x->textfile, buf, len, why, sizeof(why))) {
			/* Once per run of failures: a daemon goes on, the HTTP side still works. */
			if (!x->textfile_failing)
				warn("--textfile: %s", why);
			x->textfile_failing = true;
		} else {
			x->textfile_failing = false;
		}
	}
	if (x->http) {
		pthread_mutex_lock(&x->lock);
		free(x->body);
		x->body = buf;
		x->body_len = len;
		pthread_mutex_unlock(&x->lock);
	} else {
		free(buf);
	}
	return 0;
}

/* Sleep until @deadline (CLOCK_MONOTONIC ns) or a signal that ends the exporter. */
void exporter_sleep_until(uint64_t deadline)
{
	uint64_t now;

	while (!exporter_quit && (now = live_now_ns()) < deadline)
		poll(NULL, 0, (int)((deadline - now + 999999) / 1000000));
}
