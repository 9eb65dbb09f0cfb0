#define _GNU_SOURCE
#include "local.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void child(int out_fd)
{
	int null = open("/dev/null", O_RDWR);

	setpgid(0, 0);   /* so a timeout can kill the tools it started too */
	dup2(null, 0);
	dup2(out_fd, 1);
	dup2(null, 2);
	signal(SIGPIPE, SIG_DFL);
	execl("/bin/sh", "sh", "-c", probe_script, (char *)NULL);
	_exit(127);
}

/* Reads until EOF, the deadline or the cap.  0 at EOF. */
static int drain(int fd, struct buf *out, long deadline, struct err *e)
{
	char chunk[8192];

	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		long left = deadline - now_ms();
		ssize_t n;

		if (left <= 0)
			return err_set(e, ERR_TIMEOUT, "the probe did not finish in time");
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			return err_set(e, ERR_OTHER, "poll: %s", strerror(errno));
		n = read(fd, chunk, sizeof(chunk));
		if (n == 0)
			return 0;
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return err_set(e, ERR_OTHER, "reading the probe: %s", strerror(errno));
		if (n > 0 && buf_append(out, chunk, (size_t)n) < 0)
			return err_set(e, ERR_OTHER, "the probe printed more than %zu bytes", out->max);
	}
}

int probe_run_local(struct buf *out, long timeout_ms, struct err *e)
{
	int fds[2], status = 0, rc;
	pid_t pid;

	if (pipe(fds) < 0)
		return err_set(e, ERR_OTHER, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return err_set(e, ERR_OTHER, "fork: %s", strerror(errno));
	}
	if (pid == 0)
		child(fds[1]);
	close(fds[1]);
	rc = drain(fds[0], out, now_ms() + (timeout_ms > 0 ? timeout_ms : 60000), e);
	close(fds[0]);
	if (rc < 0)
		kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127 && out->len == 0)
		return err_set(e, ERR_OTHER, "cannot run /bin/sh");
	return rc;
}
