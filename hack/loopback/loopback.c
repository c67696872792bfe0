/*
 * loopback.so: a program's binds to every interface (0.0.0.0, ::) bind loopback instead.
 *
 * The worker's dev mode (make run) runs Debian's indiserver as the stand-in for each INDI
 * server pod, and indiserver has no option to choose its listen address: it listens on
 * every interface. Loaded with LD_PRELOAD (indi/inditest does it), this makes it listen on
 * 127.0.0.1 only, as every local stand-in of the project does. Binds to a given address are
 * left as they are. hack/tools.sh builds it into the cache (loopback-v1/loopback.so).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

int bind(int fd, const struct sockaddr *addr, socklen_t len) {
	static int (*next)(int, const struct sockaddr *, socklen_t);
	if (!next)
		next = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "bind");
	if (addr && addr->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in in;
		memcpy(&in, addr, sizeof in);
		if (in.sin_addr.s_addr == htonl(INADDR_ANY)) {
			in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			return next(fd, (const struct sockaddr *)&in, sizeof in);
		}
	}
	if (addr && addr->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 in6;
		memcpy(&in6, addr, sizeof in6);
		if (!memcmp(&in6.sin6_addr, &in6addr_any, sizeof in6addr_any)) {
			in6.sin6_addr = in6addr_loopback;
			return next(fd, (const struct sockaddr *)&in6, sizeof in6);
		}
	}
	return next(fd, addr, len);
}
