// SPDX-License-Identifier: GPL-2.0-only
/*
 * host_proc.c - the host target's processes and threads. The first process
 * a workload creates is this process itself; every further one is a
 * forked child that serves requests over a socket: the calls of its main
 * thread, and "run these threads" from run_tasks(). A child is forked
 * before the workload's threads start, dies with its parent
 * (PR_SET_PDEATHSIG), and is known to the run's signal handlers, which
 * kill it before the run leaves its cgroup. Threads are pthreads, thread
 * i pinned to host CPU i where the host has one (and left to the
 * scheduler where it has not).
 *
 * Conventions in this file: "ht" is the host target, "hp" a host process;
 * a process is "local" when it is the calling process (hp->pid == getpid()).
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/membarrier.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "target.h"
#include "host.h"
#include "../platform/platform.h"

enum req_op {
	REQ_MMAP,
	REQ_MUNMAP,
	REQ_MADVISE,
	REQ_WRITE,
	REQ_READ,
	REQ_RUN,
	REQ_FORK,
	REQ_EXIT,
	REQ_READY, /* answered once the server has started: nothing else */
};

struct request {
	int op;
	int arg;
	uint64_t a, b, c, d, e;
	void (*fn)(struct fl_thread *th, void *arg);
	void *fn_arg;
	int nr_threads; /* REQ_RUN: thread indices follow */
	bool want_tags; /* REQ_READ: the tags follow the reply */
};

struct reply {
	int ret;
	uint64_t v;
};

struct host_proc {
	struct fl_proc base;
	pid_t pid;
	int sock; /* the parent's end to a child server; -1 when local */
	struct fl_thread main;
	/*
	 * the record of the process's mappings, in the process itself (the
	 * runner's for its own, a server's for its): NULL in the runner for
	 * a server, so that making one writes little of the runner's memory
	 */
	struct host_maps *maps;
	/* the runner's view: who forked it (NULL: made by proc_create), live forks */
	struct host_proc *forked_from;
	int nr_forked;
	bool grandchild; /* forked by a server, not by the runner: not ours to waitpid() */
	int serve_fd;	 /* in a server: the socket it serves; -1 elsewhere */
	int id;		 /* in the log of steps (host_target.steps) */
};

static struct host_proc *to_hp(struct fl_proc *p)
{
	return (struct host_proc *)p;
}

static bool is_local(const struct host_proc *hp)
{
	return hp->pid == getpid();
}

int fl__host_nr_cpus_online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

struct task {
	struct fl_thread th;
	void (*fn)(struct fl_thread *th, void *arg);
	void *arg;
	pthread_t tid;
};

static void *task_main(void *p)
{
	struct task *tk = p;

	if (tk->th.cpu < fl__host_nr_cpus_online()) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(tk->th.cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	tk->fn(&tk->th, tk->arg);
	return NULL;
}

/* Run the threads of one local process; joins them all. */
static int run_local(struct fl_proc *p, const int *idx, int n,
		     void (*fn)(struct fl_thread *th, void *arg), void *arg)
{
	struct task *tk = fl_calloc((size_t)n, sizeof(*tk));
	int i, started = 0, ret = 0;

	if (!tk)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		tk[i].th.proc = p;
		tk[i].th.index = idx[i];
		tk[i].th.cpu = idx[i];
		tk[i].fn = fn;
		tk[i].arg = arg;
		ret = -pthread_create(&tk[i].tid, NULL, task_main, &tk[i]);
		if (ret)
			break;
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(tk[i].tid, NULL);
	fl_free(tk);
	return ret;
}

/*
 * A server writes SERVE_STACK bytes of its stack as it starts: those pages
 * are its own copies from then on, so the tasks it runs on this stack
 * (run_here()) take no copy-on-write fault of it, however deep they call;
 * the machinery replay's servers do the same, so the copies count there.
 */
#define SERVE_STACK (64u << 10)

static void __attribute__((__noinline__)) touch_stack(void)
{
	volatile unsigned char buf[SERVE_STACK];
	size_t i;

	for (i = 0; i < sizeof(buf); i += 4096)
		buf[i] = 0;
	buf[sizeof(buf) - 1] = 0;
}

/*
 * A fork copies no page-table entry of a shared mapping, so a server
 * would fault on each page of the shared arena its tasks touch first, as
 * the replay's empty tasks do not: it maps the whole arena as it starts
 * (MADV_POPULATE_WRITE, 5.14: faults of the kernel's own, which the
 * page-fault event does not count; without it, a write to each page).
 */
static void map_arena(struct host_proc *hp)
{
	struct host_target *ht = (struct host_target *)hp->base.target;
	size_t i;

#ifdef MADV_POPULATE_WRITE
	if (!madvise(ht->arena, SHARED_ARENA, MADV_POPULATE_WRITE))
		return;
#endif
	for (i = 0; i < SHARED_ARENA; i += 4096)
		__atomic_fetch_add((volatile unsigned char *)ht->arena + i, 0, __ATOMIC_RELAXED);
}

/*
 * A fork copies no page-table entry of a file mapping that was never
 * written, so a process faults on each page of code and read-only data it
 * runs or reads first: a server's tasks on what the replay's empty tasks
 * never run. Every read-only file mapping is mapped whole instead
 * (MADV_POPULATE_READ, 5.14: no page-fault events; without it, nothing).
 */
void fl__host_map_text(void)
{
#ifdef MADV_POPULATE_READ
	char line[4096], perms[8];
	unsigned long lo, hi, off, ino;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s %lx %*s %lu", &lo, &hi, perms, &off, &ino) == 5 &&
		    ino && perms[0] == 'r' && perms[1] == '-')
			madvise((void *)lo, hi - lo, MADV_POPULATE_READ);
	fclose(f);
#endif
}

/* A record of mappings: a copy of @from's, or empty. */
static struct host_maps *maps_new(const struct host_maps *from)
{
	struct host_maps *m = fl_calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	if (from)
		*m = *from;
	fl__host_maps_init(m);
	if (from)
		m->nr = from->nr;
	return m;
}

/* Forget @hp's record (if any); with @unmap, unmap what it still holds. */
static void maps_free(struct host_proc *hp, bool unmap)
{
	struct host_target *ht = (struct host_target *)hp->base.target;

	if (!hp->maps)
		return;
	fl__host_maps_destroy(hp->maps, unmap);
	if (hp->maps != &ht->self_maps)
		fl_free(hp->maps);
	hp->maps = NULL;
}

/*
 * Run one task of a server's process on its serving thread, pinned as a
 * task thread would be, and let the thread run where it did after.
 */
static int run_here(struct fl_proc *p, int idx, void (*fn)(struct fl_thread *th, void *arg),
		    void *arg)
{
	struct task tk = { .th = { .proc = p, .index = idx, .cpu = idx }, .fn = fn, .arg = arg };
	cpu_set_t was;
	bool pinned = !pthread_getaffinity_np(pthread_self(), sizeof(was), &was);

	task_main(&tk);
	if (pinned)
		pthread_setaffinity_np(pthread_self(), sizeof(was), &was);
	return 0;
}

static int full_io(int fd, void *buf, size_t len, bool out)
{
	unsigned char *p = buf;

	while (len) {
		/* MSG_NOSIGNAL: a server that died is an error to report, not a SIGPIPE */
		ssize_t n = out ? send(fd, p, len, MSG_NOSIGNAL) : read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void serve(struct host_proc *hp, int sock);

/* Send @fd over @sock (SCM_RIGHTS) with one byte. Return: 0 or -errno. */
static int send_fd(int sock, int fd)
{
	char byte = 0, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)
	};
	struct cmsghdr *c;

	memset(ctl, 0, sizeof(ctl));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	while (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/* Receive a descriptor send_fd() sent. Return: the descriptor or -errno. */
static int recv_fd(int sock)
{
	char byte, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)
	};
	struct cmsghdr *c;
	ssize_t n;
	int fd;

	while ((n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0)
		if (errno != EINTR)
			return -errno;
	c = CMSG_FIRSTHDR(&msg);
	if (n != 1 || !c || c->cmsg_type != SCM_RIGHTS)
		return -EPIPE;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/*
 * The forked process's side of a fork: a server of its own on @sock, with
 * the address space (and the record of its mappings) it inherited. It
 * dies with the process that forked it.
 */
static void __attribute__((noreturn))
serve_forked(const struct host_proc *from, int sock, pid_t parent)
{
	struct host_proc *hp = fl_calloc(1, sizeof(*hp));

	fl__host_forget_in_child();
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (!hp || getppid() != parent)
		_exit(1);
	if (from->serve_fd >= 0)
		close(from->serve_fd); /* the forking server's socket is its own */
	hp->base = from->base;
	hp->main.proc = &hp->base;
	hp->main.index = -1;
	hp->sock = -1;
	hp->maps = maps_new(from->maps);
	if (!hp->maps)
		_exit(1);
	hp->pid = getpid();
	serve(hp, sock);
	_exit(0);
}

/*
 * A server forks its process: the child serves on a new socket, whose
 * other end goes to the runner after the reply (send_fd()).
 * Return: the child's pid, or -errno; *@fd_out the runner's end.
 */
static int serve_fork(struct host_proc *hp, int *fd_out)
{
	int sv[2];
	pid_t pid, self = getpid();

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -errno;
	}
	if (pid == 0) {
		close(sv[0]);
		serve_forked(hp, sv[1], self);
	}
	close(sv[1]);
	*fd_out = sv[0];
	return (int)pid;
}

static void serve(struct host_proc *hp, int sock)
{
	struct request rq;
	struct reply rp;

	hp->serve_fd = sock;
	if (!hp->maps && !(hp->maps = maps_new(NULL)))
		_exit(1);
	touch_stack();
	map_arena(hp);
	fl__host_map_text();
	/* the processes it forks are reaped as they exit */
	signal(SIGCHLD, SIG_IGN);

	while (!full_io(sock, &rq, sizeof(rq), false)) {
		uint64_t *tags = NULL;
		int *idx = NULL, fork_fd = -1, idx_here[64];

		memset(&rp, 0, sizeof(rp));
		switch (rq.op) {
		case REQ_MMAP:
			rp.ret = fl__host_mem_mmap(hp->maps, rq.a, rq.arg, (int)rq.b, &rp.v);
			break;
		case REQ_MUNMAP:
			rp.ret = fl__host_mem_munmap(hp->maps, rq.a, rq.b);
			break;
		case REQ_MADVISE:
			rp.ret = fl__host_mem_madvise(hp->maps, rq.a, rq.b, rq.arg);
			break;
		case REQ_WRITE:
			rp.ret = fl__host_mem_write(hp->maps, rq.a, rq.b, rq.c, rq.d, rq.e);
			break;
		case REQ_READ:
			if (rq.want_tags && rq.c)
				tags = calloc((size_t)(rq.b / rq.c) + 1, sizeof(*tags));
			rp.ret = rq.want_tags && !tags ? -ENOMEM
						       : fl__host_mem_read(hp->maps, rq.a, rq.b,
									   rq.c, tags, &rp.v);
			break;
		case REQ_RUN:
			idx = rq.nr_threads <= (int)(sizeof(idx_here) / sizeof(*idx_here))
				      ? idx_here
				      : calloc((size_t)rq.nr_threads, sizeof(*idx));
			if (!idx || full_io(sock, idx, (size_t)rq.nr_threads * sizeof(*idx), false))
				_exit(1);
			/* one task on this thread: no thread of its own to start (stack, TLS) */
			rp.ret = rq.nr_threads == 1 ? run_here(&hp->base, idx[0], rq.fn, rq.fn_arg)
						    : run_local(&hp->base, idx, rq.nr_threads,
								rq.fn, rq.fn_arg);
			if (idx != idx_here)
				free(idx);
			break;
		case REQ_FORK:
			fork_fd = -1;
			rp.ret = serve_fork(hp, &fork_fd);
			if (rp.ret > 0) {
				rp.v = (uint64_t)rp.ret;
				rp.ret = 0;
			}
			break;
		case REQ_READY:
			break;
		case REQ_EXIT:
		default:
			_exit(0);
		}
		if (full_io(sock, &rp, sizeof(rp), true))
			_exit(1);
		if (rq.op == REQ_FORK && fork_fd >= 0) {
			if (send_fd(sock, fork_fd))
				_exit(1);
			close(fork_fd);
		}
		if (rq.op == REQ_READ && rq.want_tags && !rp.ret &&
		    full_io(sock, tags, (size_t)(rq.b / rq.c) * sizeof(*tags), true))
			_exit(1);
		free(tags);
	}
	_exit(0);
}

static int call(struct host_proc *hp, struct request *rq, struct reply *rp)
{
	if (full_io(hp->sock, rq, sizeof(*rq), true) || full_io(hp->sock, rp, sizeof(*rp), false))
		return -EPIPE;
	return rp->ret;
}

/* Log a step of the run's process machinery (not while replaying it). */
static void log_step(struct host_target *ht, int op, const struct host_proc *hp, int from, int nr,
		     int batch)
{
	struct host_step *st;

	if (ht->replaying)
		return;
	if (ht->nr_steps == HOST_MAX_STEPS || hp->id >= HOST_MAX_PROCS) {
		ht->steps_lost = true;
		return;
	}
	st = &ht->steps[ht->nr_steps++];
	st->op = (unsigned char)op;
	st->local = op == HOST_STEP_CREATE && is_local(hp);
	st->proc = (short)hp->id;
	st->from = (short)from;
	st->nr = (short)nr;
	st->batch = batch;
}

static struct host_proc *proc_new(struct fl_target *t)
{
	struct host_target *ht = (struct host_target *)t;
	struct host_proc *hp = fl_calloc(1, sizeof(*hp));

	if (!hp)
		return NULL;
	hp->base.target = t;
	hp->main.proc = &hp->base;
	hp->main.index = -1;
	hp->main.cpu = 0;
	hp->sock = -1;
	hp->serve_fd = -1;
	hp->id = ht->replaying ? -1 : ht->nr_ids++;
	return hp;
}

static void proc_free(struct host_proc *hp)
{
	maps_free(hp, false);
	fl_free(hp);
}

static void server_exit(struct host_proc *hp);

/*
 * Back when @hp's server has started (its stack, arena and record made):
 * what its start takes counts before anything the run does next.
 */
static int server_ready(struct host_proc *hp)
{
	struct request rq = { .op = REQ_READY };
	struct reply rp;
	int ret = call(hp, &rq, &rp);

	if (ret)
		server_exit(hp); /* it died starting: its socket is at its end */
	return ret;
}

/* Fork this process into a server of @hp's (a child that dies with us). */
static int fork_server(struct host_proc *hp)
{
	int sv[2];
	pid_t pid, parent = getpid();

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -errno;
	}
	if (pid == 0) {
		close(sv[0]);
		fl__host_forget_in_child();
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		hp->pid = getpid();
		serve(hp, sv[1]);
	}
	close(sv[1]);
	fl__host_child_add(pid);
	hp->pid = pid;
	hp->sock = sv[0];
	return server_ready(hp);
}

/* A server forks: the new one, whose socket the server sends us, is @hp's. */
static int server_fork(struct host_proc *server, struct host_proc *hp)
{
	struct request rq = { .op = REQ_FORK };
	struct reply rp;
	int ret = call(server, &rq, &rp), fd;

	if (ret)
		return ret;
	fd = recv_fd(server->sock);
	if (fd < 0)
		return fd;
	hp->sock = fd;
	hp->pid = (pid_t)rp.v;
	hp->grandchild = true;
	fl__host_child_add(hp->pid);
	return server_ready(hp);
}

int fl__host_proc_create(struct fl_target *t, struct fl_proc **out)
{
	struct host_target *ht = (struct host_target *)t;
	struct host_proc *hp = proc_new(t);
	int ret = 0;

	if (!hp)
		return -ENOMEM;
	if (!ht->self_in_use) {
		/* the runner's own record: written before the run (host_begin()) */
		ht->self_in_use = true;
		hp->pid = getpid();
		hp->maps = &ht->self_maps;
		fl__host_maps_init(hp->maps);
	} else {
		/* from the zygote, whose memory the run never writes to */
		ret = ht->zygote ? server_fork(ht->zygote, hp) : fork_server(hp);
	}
	if (ret) {
		proc_free(hp);
		return ret;
	}
	log_step(ht, HOST_STEP_CREATE, hp, -1, 0, 0);
	*out = &hp->base;
	return 0;
}

/**
 * fl__host_proc_fork() - fork the process of @th, from its main thread:
 * the runner itself (a child as proc_create() makes, keeping the address
 * space) or a server (which forks and hands the new server's socket to
 * the runner). The new process dies with the one that forked it.
 */
int fl__host_proc_fork(struct fl_thread *th, struct fl_proc **out)
{
	struct host_target *ht = (struct host_target *)th->proc->target;
	struct host_proc *parent = to_hp(th->proc), *hp;
	int sv[2], ret;
	pid_t pid, self = getpid();

	if (th->index != -1)
		return -EINVAL; /* from a task: the runner could not reach the child */
	hp = proc_new(parent->base.target);
	if (!hp)
		return -ENOMEM;
	if (!is_local(parent)) {
		ret = server_fork(parent, hp);
		if (ret) {
			proc_free(hp);
			return ret;
		}
		goto forked;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		ret = -errno;
		proc_free(hp);
		return ret;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(sv[0]);
		close(sv[1]);
		proc_free(hp);
		return ret;
	}
	if (pid == 0) {
		close(sv[0]);
		serve_forked(parent, sv[1], self);
	}
	close(sv[1]);
	hp->pid = pid;
	hp->sock = sv[0];
	fl__host_child_add(hp->pid);
	ret = server_ready(hp);
	if (ret) {
		proc_free(hp);
		return ret;
	}
forked:
	hp->forked_from = parent;
	parent->nr_forked++;
	log_step(ht, HOST_STEP_FORK, hp, parent->id, 0, 0);
	*out = &hp->base;
	return 0;
}

/* A server exits; back when its address space is gone. */
static void server_exit(struct host_proc *hp)
{
	struct request rq = { .op = REQ_EXIT };
	char c;
	ssize_t n;

	full_io(hp->sock, &rq, sizeof(rq), true);
	/* end of file: the process has exited (exit_mm() comes before exit_files()) */
	do
		n = read(hp->sock, &c, 1);
	while (n > 0 || (n < 0 && errno == EINTR));
	close(hp->sock);
	if (!hp->grandchild)
		waitpid(hp->pid, NULL, 0);
	fl__host_child_forget(hp->pid);
}

int fl__host_proc_exit(struct fl_proc *p)
{
	struct host_target *ht = (struct host_target *)p->target;
	struct host_proc *hp = to_hp(p);

	if (hp->nr_forked)
		return -EBUSY; /* the processes it forked exit first */
	if (hp->forked_from)
		hp->forked_from->nr_forked--;
	log_step(ht, HOST_STEP_EXIT, hp, -1, 0, 0);
	if (is_local(hp))
		ht->self_in_use = false;
	else
		server_exit(hp);
	maps_free(hp, is_local(hp));
	fl_free(hp);
	return 0;
}

struct fl_thread *fl__host_proc_main(struct fl_proc *p)
{
	return &to_hp(p)->main;
}

int fl__host_run_tasks(struct fl_target *t, struct fl_proc **procs, int n,
		       void (*fn)(struct fl_thread *th, void *arg), void *arg)
{
	struct host_target *ht = (struct host_target *)t;
	int *idx, i, j, k, m, ret = 0, r;
	struct fl_proc **done;

	if (n < 1)
		return -EINVAL;
	idx = fl_calloc((size_t)n, sizeof(*idx));
	done = fl_calloc((size_t)n, sizeof(*done));
	if (!idx || !done) {
		fl_free(idx);
		fl_free(done);
		return -ENOMEM;
	}
	/* the log: each process of the call with its thread count */
	if (!ht->replaying) {
		ht->nr_batches++;
		for (k = 0; k < n; k++) {
			for (j = 0; j < k && procs[j] != procs[k]; j++)
				;
			if (j < k)
				continue;
			for (i = k, m = 0; i < n; i++)
				m += procs[i] == procs[k];
			log_step(ht, HOST_STEP_RUN, to_hp(procs[k]), -1, m, ht->nr_batches);
		}
	}
	/* start the children's threads first, then ours, then collect */
	for (k = 0, m = 0; k < n; k++) {
		struct host_proc *hp = to_hp(procs[k]);
		struct request rq = { .op = REQ_RUN, .fn = fn, .fn_arg = arg };
		bool seen = false;

		for (j = 0; j < m && !seen; j++)
			seen = done[j] == procs[k];
		if (seen || is_local(hp))
			continue;
		done[m++] = procs[k];
		for (i = 0, rq.nr_threads = 0; i < n; i++)
			if (procs[i] == procs[k])
				idx[rq.nr_threads++] = i;
		if (full_io(hp->sock, &rq, sizeof(rq), true) ||
		    full_io(hp->sock, idx, (size_t)rq.nr_threads * sizeof(*idx), true))
			ret = -EPIPE;
	}
	for (k = 0, j = 0; k < n; k++)
		if (is_local(to_hp(procs[k])))
			idx[j++] = k;
	if (j) {
		r = run_local(procs[idx[0]], idx, j, fn, arg);
		if (r && !ret)
			ret = r;
	}
	for (k = 0; k < m; k++) {
		struct reply rp;

		if (full_io(to_hp(done[k])->sock, &rp, sizeof(rp), false))
			r = -EPIPE;
		else
			r = rp.ret;
		if (r && !ret)
			ret = r;
	}
	fl_free(idx);
	fl_free(done);
	return ret;
}

/*
 * The zygote and the machinery replay. A fork shares every page of the
 * parent's until one of the two writes it, and then copies it: after a
 * fork from this process, every page this process writes (counters,
 * heap, stack) would be a fault and a page counted as the workload's. So
 * the workload's processes after the first fork from a zygote, a server
 * forked before the run's first counters that does nothing but fork, and
 * this process writes its own copy of every page it shares with the
 * zygote before the run starts. The zygote forks once before the run too
 * (a server that runs a thread and exits): the pages it writes across a
 * fork are then copies of its own, charged to the run's memory cgroup,
 * and each later fork's copy replaces one there (nr_anon_pages stays).
 *
 * What the machinery still does in the run (page tables copied at fork,
 * the servers' own copy-on-write of their stacks and heaps, thread
 * stacks) is the same with or without a workload in the processes, so
 * fl__host_machinery() measures it by running the logged steps again
 * with empty tasks, counted as the run was.
 */
static void empty_task(struct fl_thread *th, void *arg)
{
	(void)th;
	(void)arg;
}

/* mappings larger than this are a sanitizer's shadow, never the runner's pages */
#define UNSHARE_MAX_BYTES (1ul << 30)

/*
 * Write every resident page of this process's private writable mappings
 * with the value it holds (atomically: other threads may write it too),
 * so that this process has its own copy of what a fork shared. Not
 * instrumented: the pages include a sanitizer's red zones and the other
 * threads' memory, which an add of 0 leaves as they were.
 */
static void __attribute__((no_sanitize("address", "thread", "undefined"))) unshare_self(void)
{
	const unsigned long psz = (unsigned long)sysconf(_SC_PAGESIZE);
	unsigned char vec[256];
	char line[4096], perms[8];
	unsigned long lo, hi, a, n, i;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || strcmp(perms, "rw-p") ||
		    hi - lo > UNSHARE_MAX_BYTES)
			continue;
		for (a = lo; a < hi; a += n * psz) {
			n = (hi - a) / psz < sizeof(vec) ? (hi - a) / psz : sizeof(vec);
			if (mincore((void *)a, n * psz, vec))
				break;
			for (i = 0; i < n; i++)
				if (vec[i] & 1)
					__atomic_fetch_add((volatile unsigned char *)(a + i * psz),
							   0, __ATOMIC_RELAXED);
		}
	}
	fclose(f);
}

/*
 * Servers the zygote forks at once before the run, each running a thread:
 * the kernel's caches then hold what that many processes take (task and
 * perf-event slabs, kernel stacks), as they do when the replay runs after
 * the workload, rather than growing for the run's first processes only.
 */
#define ZYGOTE_WARM 8

/*
 * The kernel frees much of what an exited process held after an RCU grace
 * period (its perf events, its kernel stack back to the CPU's cache): wait
 * for two, so that the run's first forks find those caches as the replay
 * will, long after the run's own exits. membarrier's MEMBARRIER_CMD_GLOBAL
 * is synchronize_rcu(); where it is refused, 20 ms.
 */
static void settle_rcu(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) ||
	    syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		nanosleep(&ts, NULL);
}

int fl__host_zygote_start(struct fl_target *t)
{
	struct host_target *ht = (struct host_target *)t;
	struct host_proc *z, *warm[ZYGOTE_WARM] = { NULL };
	int i, n = 0, ret;

	ht->replaying = true; /* none of this is the run's */
	z = proc_new(t);
	ret = z ? fork_server(z) : -ENOMEM;
	if (!ret)
		ht->zygote = z;
	for (i = 0; !ret && i < ZYGOTE_WARM; i++) {
		warm[i] = proc_new(t);
		ret = warm[i] ? server_fork(z, warm[i]) : -ENOMEM;
		if (!ret)
			n++;
	}
	if (!ret)
		ret = fl__host_run_tasks(t, (struct fl_proc **)warm, n, empty_task, NULL);
	for (i = 0; i < ZYGOTE_WARM && warm[i]; i++) {
		if (i < n)
			server_exit(warm[i]);
		proc_free(warm[i]);
	}
	settle_rcu();
	ht->replaying = false;
	if (ret && ht->zygote) {
		fl__host_zygote_stop(t);
		return ret;
	}
	if (ret) {
		if (z)
			proc_free(z);
		return ret;
	}
	unshare_self();
	return 0;
}

void fl__host_zygote_stop(struct fl_target *t)
{
	struct host_target *ht = (struct host_target *)t;

	if (!ht->zygote)
		return;
	server_exit(ht->zygote);
	proc_free(ht->zygote);
	ht->zygote = NULL;
}

/* The threads of the RUN steps from @i that share its batch, as run_tasks() takes them. */
static int replay_run(struct host_target *ht, struct host_proc **p, int i, int *next)
{
	int batch = ht->steps[i].batch, j, k, n = 0, ret;
	struct fl_proc **procs;

	for (j = i;
	     j < ht->nr_steps && ht->steps[j].op == HOST_STEP_RUN && ht->steps[j].batch == batch;
	     j++) {
		if (!p[ht->steps[j].proc])
			return -EINVAL;
		n += ht->steps[j].nr;
	}
	*next = j;
	procs = fl_calloc((size_t)n, sizeof(*procs));
	if (!procs)
		return -ENOMEM;
	for (j = i, n = 0; j < *next; j++)
		for (k = 0; k < ht->steps[j].nr; k++)
			procs[n++] = &p[ht->steps[j].proc]->base;
	ret = fl__host_run_tasks(&ht->base, procs, n, empty_task, NULL);
	fl_free(procs);
	return ret;
}

/* The logged steps again, with empty tasks; @p[id]: the processes that live. */
static int replay(struct host_target *ht, struct host_proc **p, int *done)
{
	struct fl_proc *out;
	int i, next, ret = 0;

	for (i = 0; i < ht->nr_steps && !ret; i = next) {
		const struct host_step *st = &ht->steps[i];

		next = i + 1;
		switch (st->op) {
		case HOST_STEP_CREATE:
			p[st->proc] = proc_new(&ht->base);
			if (!p[st->proc])
				return -ENOMEM;
			if (st->local)
				p[st->proc]->pid = getpid();
			else
				ret = ht->zygote ? server_fork(ht->zygote, p[st->proc])
						 : fork_server(p[st->proc]);
			if (ret) {
				proc_free(p[st->proc]);
				p[st->proc] = NULL;
			}
			break;
		case HOST_STEP_FORK:
			if (!p[st->from])
				return -EINVAL;
			ret = fl__host_proc_fork(&p[st->from]->main, &out);
			if (!ret)
				p[st->proc] = to_hp(out);
			break;
		case HOST_STEP_RUN:
			ret = replay_run(ht, p, i, &next);
			break;
		case HOST_STEP_EXIT:
			if (!p[st->proc])
				return -EINVAL;
			ret = fl__host_proc_exit(&p[st->proc]->base);
			p[st->proc] = NULL;
			break;
		}
		*done += next - i;
	}
	return ret;
}

int fl__host_machinery(struct fl_target *t, struct fl_counters *out, int *nr_steps)
{
	struct host_target *ht = (struct host_target *)t;
	struct fl_counters before = { 0 }, after = { 0 };
	struct host_proc **p;
	bool any = false;
	int i, ret;

	*nr_steps = 0;
	for (i = 0; i < ht->nr_steps; i++)
		any |= (ht->steps[i].op == HOST_STEP_CREATE && !ht->steps[i].local) ||
		       ht->steps[i].op == HOST_STEP_FORK;
	if (!any)
		return 0;
	if (ht->steps_lost)
		return -E2BIG;
	p = fl_calloc(HOST_MAX_PROCS, sizeof(*p));
	if (!p)
		return -ENOMEM;
	ret = fl_counters_reserve(&before, 1024) | fl_counters_reserve(&after, 1024);
	if (!ret)
		ret = t->ops->counters(t, &before);
	if (!ret) {
		ht->replaying = true;
		ret = replay(ht, p, nr_steps);
		/* after a failure, what is left: a forked process before its parent (a lower id) */
		for (i = HOST_MAX_PROCS - 1; i >= 0; i--)
			if (p[i])
				fl__host_proc_exit(&p[i]->base);
		ht->replaying = false;
	}
	if (!ret)
		ret = t->ops->counters(t, &after);
	for (i = 0; !ret && i < after.nr; i++)
		ret = fl_counters_set_scoped(out, after.v[i].name,
					     after.v[i].value -
						     fl_counters_get(&before, after.v[i].name),
					     after.v[i].scope);
	fl_counters_free(&before);
	fl_counters_free(&after);
	fl_free(p);
	return ret;
}

int fl__host_mmap_file(struct fl_thread *th, struct fl_file *f, uint64_t off, uint64_t len,
		       int prot, int flags, uint64_t *addr)
{
	struct host_proc *hp = to_hp(th->proc);

	if (!is_local(hp))
		return -EOPNOTSUPP; /* a forked process has not the file open */
	return fl__host_mem_mmap_fd(hp->maps, len, prot, flags, fl__host_file_fd(f), off, addr);
}

int fl__host_mmap(struct fl_thread *th, uint64_t len, int prot, int flags, uint64_t *addr)
{
	struct host_proc *hp = to_hp(th->proc);
	struct request rq = { .op = REQ_MMAP, .a = len, .arg = prot, .b = (uint64_t)flags };
	struct reply rp;
	int ret;

	if (is_local(hp))
		return fl__host_mem_mmap(hp->maps, len, prot, flags, addr);
	ret = call(hp, &rq, &rp);
	if (!ret)
		*addr = rp.v;
	return ret;
}

int fl__host_munmap(struct fl_thread *th, uint64_t addr, uint64_t len)
{
	struct host_proc *hp = to_hp(th->proc);
	struct request rq = { .op = REQ_MUNMAP, .a = addr, .b = len };
	struct reply rp;

	return is_local(hp) ? fl__host_mem_munmap(hp->maps, addr, len) : call(hp, &rq, &rp);
}

int fl__host_madvise(struct fl_thread *th, uint64_t addr, uint64_t len, int advice)
{
	struct host_proc *hp = to_hp(th->proc);
	struct request rq = { .op = REQ_MADVISE, .a = addr, .b = len, .arg = advice };
	struct reply rp;

	return is_local(hp) ? fl__host_mem_madvise(hp->maps, addr, len, advice)
			    : call(hp, &rq, &rp);
}

int fl__host_write(struct fl_thread *th, uint64_t addr, uint64_t len, uint64_t stride, uint64_t tag,
		   uint64_t tag_step)
{
	struct host_proc *hp = to_hp(th->proc);
	struct request rq = {
		.op = REQ_WRITE, .a = addr, .b = len, .c = stride, .d = tag, .e = tag_step
	};
	struct reply rp;

	return is_local(hp) ? fl__host_mem_write(hp->maps, addr, len, stride, tag, tag_step)
			    : call(hp, &rq, &rp);
}

int fl__host_read(struct fl_thread *th, uint64_t addr, uint64_t len, uint64_t stride,
		  uint64_t *tags, uint64_t *sum)
{
	struct host_proc *hp = to_hp(th->proc);
	struct request rq = {
		.op = REQ_READ, .a = addr, .b = len, .c = stride, .want_tags = tags != NULL
	};
	struct reply rp;
	int ret;

	if (is_local(hp))
		return fl__host_mem_read(hp->maps, addr, len, stride, tags, sum);
	if (!stride)
		return -EINVAL;
	ret = call(hp, &rq, &rp);
	if (ret)
		return ret;
	if (tags && full_io(hp->sock, tags, (size_t)(len / stride) * sizeof(*tags), false))
		return -EPIPE;
	if (sum)
		*sum = rp.v;
	return 0;
}

/*
 * The calling thread's dTLB-load-misses (perf's generic cache event: the
 * data TLB, reads, misses), counted from its first sample on; -1 with
 * perf_event_open's errno in *@err where this kernel or CPU does not count
 * them (a guest without a virtual PMU, for one).
 */
static int64_t thread_dtlb_load_misses(int *err)
{
	static _Thread_local int fd = -2, open_errno; /* -2: not opened yet */
	struct perf_event_attr a = {
		.type = PERF_TYPE_HW_CACHE,
		.size = sizeof(a),
		.config = PERF_COUNT_HW_CACHE_DTLB | PERF_COUNT_HW_CACHE_OP_READ << 8 |
			  PERF_COUNT_HW_CACHE_RESULT_MISS << 16,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	uint64_t v;

	if (fd == -2) {
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		open_errno = fd < 0 ? errno : 0;
	}
	if (fd >= 0 && read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		return (int64_t)v;
	*err = fd >= 0 ? EIO : open_errno;
	return -1;
}

/*
 * The calling thread's process's AnonHugePages (/proc/self/smaps_rollup):
 * a task runs in the process it samples, so "self" is that process.
 */
int fl__host_thp_sample(struct fl_thread *th, struct fl_thp_sample *out)
{
	char line[256];
	unsigned long long kb;
	FILE *f;
	int ret = -ENOENT;

	if (!is_local(to_hp(th->proc)))
		return -EOPNOTSUPP; /* from the runner for another process: not ours to read */
	f = fopen("/proc/self/smaps_rollup", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) {
			out->anon_huge_bytes = kb * 1024;
			ret = 0;
			break;
		}
	fclose(f);
	out->pte_accesses = -1;
	out->pmd_accesses = -1;
	out->dtlb_errno = 0;
	out->dtlb_load_misses = thread_dtlb_load_misses(&out->dtlb_errno);
	return ret;
}

/*
 * fl__proc_stat_cpu_ticks() - a task's CPU time in clock ticks from the
 * text of /proc/PID/stat: utime + stime, the 14th and 15th fields. The
 * name (the 2nd, in parentheses) may hold spaces and parentheses, so the
 * fields are counted from its last ')'.
 * Return: 0, or -EINVAL if the text has no such fields.
 */
int fl__proc_stat_cpu_ticks(const char *text, long long *ticks)
{
	const char *p = strrchr(text, ')');
	unsigned long long ut, st;

	/* after ")": state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt */
	if (!p ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -EINVAL;
	*ticks = (long long)(ut + st);
	return 0;
}

/* The line of /proc/@pid/stat into @buf[512]. Return: true if read. */
static bool proc_stat_line(const char *pid, char buf[512])
{
	char path[300]; /* /proc/<a d_name of up to 255 bytes>/stat */
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fgets(buf, 512, f) != NULL;
	fclose(f);
	return ok;
}

/* The pid of the kernel thread named khugepaged (a child of kthreadd, pid 2), or 0. */
static int khugepaged_pid(void)
{
	static int pid = -1;
	char buf[512];
	struct dirent *d;
	DIR *dir;
	int ppid;

	if (pid >= 0)
		return pid;
	dir = opendir("/proc");
	if (!dir)
		return 0;
	pid = 0;
	while (!pid && (d = readdir(dir)))
		if (d->d_name[0] >= '1' && d->d_name[0] <= '9' && proc_stat_line(d->d_name, buf) &&
		    strstr(buf, " (khugepaged) ") &&
		    sscanf(strrchr(buf, ')') + 1, " %*c %d", &ppid) == 1 && ppid == 2)
			pid = atoi(d->d_name);
	closedir(dir);
	return pid;
}

/*
 * fl__host_khugepaged_ns() - the CPU time the host's khugepaged thread has
 * had since boot (utime + stime, in ticks of 1/CLK_TCK s).
 * Return: 0, or -ENOENT if there is no such thread.
 */
int fl__host_khugepaged_ns(int64_t *ns)
{
	char pid[16], buf[512];
	long long ticks;
	long hz = sysconf(_SC_CLK_TCK);
	int kp = khugepaged_pid();

	snprintf(pid, sizeof(pid), "%d", kp);
	if (!kp || hz <= 0 || !proc_stat_line(pid, buf) || fl__proc_stat_cpu_ticks(buf, &ticks))
		return -ENOENT;
	*ns = (int64_t)(ticks * (1000000000ll / hz));
	return 0;
}
