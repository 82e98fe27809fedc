/* SPDX-License-Identifier: MIT */
/*
 * rseq_vm_init.c - the init of the emulated machine of tests/rseq-vm-check.sh:
 * mounts /dev, /proc and /sys, runs each test program the initramfs holds
 * (/test_group, /test_tree: static builds of tests/test_group and
 * tests/test_tree) with its output on the console between the lines
 * "RSEQVM-RUN <program>" and "RSEQVM-STATUS <program> <status>", prints
 * "RSEQVM-EXIT <status>" (the first nonzero status, else 0) and powers the
 * machine off. Built static for the emulated architecture; runs as process
 * 1, so it must never return.
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
	static char *const programs[] = {"/test_group", "/test_tree"};
	int worst = 0;
	for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++) {
		if (access(programs[i], X_OK) != 0)
			continue;
		printf("RSEQVM-RUN %s\n", programs[i]);
		fflush(stdout);
		int status = 1;
		pid_t pid = fork();
		if (pid == 0) {
			char *argv[] = {programs[i], NULL};
			char *envp[] = {"PATH=/", NULL};
			execve(argv[0], argv, envp);
			perror("rseq_vm_init: execve");
			_exit(127);
		}
		if (pid > 0 && waitpid(pid, &status, 0) == pid)
			status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		printf("RSEQVM-STATUS %s %d\n", programs[i], status);
		if (status != 0 && worst == 0)
			worst = status;
	}
	printf("RSEQVM-EXIT %d\n", worst);
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}
