/* SPDX-License-Identifier: MIT */
/*
 * rseq_vm_init.c - the init of the emulated machine of tests/rseq-vm-check.sh:
 * mounts /dev, /proc and /sys, runs /test_group (a static build of
 * tests/test_group) with its output on the console, prints
 * "RSEQVM-EXIT <status>" and powers the machine off. Built static for the
 * emulated architecture; runs as process 1, so it must never return.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void console(void)
{
	int fd = open("/dev/console", O_RDWR);
	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

int main(void)
{
	mkdir("/dev", 0755);
	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	console();
	setvbuf(stdout, NULL, _IOLBF, 0);
	int status = 1;
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = {"/test_group", NULL};
		char *envp[] = {"PATH=/", NULL};
		execve(argv[0], argv, envp);
		perror("rseq_vm_init: execve /test_group");
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid)
		status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	printf("RSEQVM-EXIT %d\n", status);
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}
