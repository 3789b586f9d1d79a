/* A kernel that leaves a grandchild behind: forks a child that sleeps for an hour, prints the
 * child's pid, and then either exits (argv[1] == "exit") or hangs. The agent must kill the
 * whole process group either way. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  pid_t child = fork();
  if (child == 0) {
    sleep(3600);
    return 0;
  }
  printf("child %d\n", (int)child);
  fflush(stdout);
  if (argc > 1 && strcmp(argv[1], "exit") == 0) return 0;
  for (;;) pause();
}
