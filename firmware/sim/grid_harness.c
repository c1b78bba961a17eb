/*
 * Runs the reed-grid firmware in simavr with a modelled diode switch matrix, its UART0 on a pseudo-terminal.
 *
 *   grid_harness -m atmega328p -f reed_grid.elf -r D4,D5,... -c C0,C1,... [-t]
 *
 * -r and -c name the port and bit of each row and column pin in order (the test side reads them from pins.h);
 * -t throttles the simulation to real time. The harness prints "pty /dev/pts/N" and waits for commands on stdin,
 * one a line, each answered by a line starting "ok" once it has taken effect in simulated time:
 *   go                start the CPU (after the host has opened the pty: opening it flushes what came before)
 *   close R C | open R C      one switch
 *   pulse R C US      close a switch now and open it US microseconds of simulated time later
 *   set W0 W1 ...     the whole matrix at once, one hex word of closed columns per row
 *   reset             reset the MCU, as the host's DTR does on a real board
 *   time              answers "ok <simulated microseconds>"
 *   quit
 * The matrix model: a column pin reads 0 when some row whose switch in that column is closed is driven low (its DDR
 * bit set, its PORT bit clear), otherwise 1 (the pull-up). It is computed when the firmware reads the PIN register,
 * so it is exact whatever the order of the firmware's writes.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "avr_extint.h"
#include "sim_avr.h"
#include "sim_elf.h"
#include "uart_pty.h"

#define MAX_LINES 16

typedef struct {
  char port;
  uint8_t bit;
  uint16_t pin_addr; /* data address of the PINx register; DDRx and PORTx follow it */
} pin_t;

static avr_t *avr;
static uart_pty_t pty;
static pin_t rows[MAX_LINES], cols[MAX_LINES];
static int nrows, ncols;
static uint16_t closed[MAX_LINES]; /* closed[row] bit c: switch (row, c) is closed; touched by the sim thread only */

typedef struct {
  uint16_t addr;
  avr_io_read_t read;
  void *param;
} hooked_t;
static hooked_t hooked[12];
static int nhooked;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t started = PTHREAD_COND_INITIALIZER;
static char pending[4096];
static atomic_int have_pending;
static int running;
static int throttle;

static uint16_t pin_address(char port) {
  switch (port) {
    case 'A': return 0x20;
    case 'B': return 0x23;
    case 'C': return 0x26;
    case 'D': return 0x29;
    case 'E': return 0x2C;
    case 'F': return 0x2F;
    case 'G': return 0x32;
    case 'H': return 0x100;
    case 'J': return 0x103;
    case 'K': return 0x106;
    case 'L': return 0x109;
  }
  fprintf(stderr, "grid_harness: no port %c\n", port);
  exit(2);
}

static int parse_pins(const char *text, pin_t *pins) {
  int n = 0;
  while (*text && n < MAX_LINES) {
    pins[n].port = text[0];
    pins[n].bit = (uint8_t)(text[1] - '0');
    pins[n].pin_addr = pin_address(text[0]);
    n++;
    text += 2;
    if (*text == ',') text++;
  }
  return n;
}

static uint8_t read_pin_register(struct avr_t *a, avr_io_addr_t addr, void *param) {
  hooked_t *h = (hooked_t *)param;
  uint8_t value = h->read ? h->read(a, addr, h->param) : a->data[addr];
  for (int c = 0; c < ncols; c++) {
    if (cols[c].pin_addr != addr) continue;
    int low = 0;
    for (int r = 0; r < nrows && !low; r++) {
      if (!(closed[r] & (1u << c))) continue;
      uint8_t ddr = a->data[rows[r].pin_addr + 1], port = a->data[rows[r].pin_addr + 2];
      low = (ddr >> rows[r].bit & 1) && !(port >> rows[r].bit & 1);
    }
    if (low)
      value &= (uint8_t)~(1u << cols[c].bit);
    else
      value |= (uint8_t)(1u << cols[c].bit);
  }
  return value;
}

static void hook_columns(void) {
  for (int c = 0; c < ncols; c++) {
    int seen = 0;
    for (int i = 0; i < nhooked; i++) seen |= hooked[i].addr == cols[c].pin_addr;
    if (seen) continue;
    hooked_t *h = &hooked[nhooked++];
    int io = AVR_DATA_TO_IO(cols[c].pin_addr);
    h->addr = cols[c].pin_addr;
    h->read = avr->io[io].r.c;
    h->param = avr->io[io].r.param;
    /* Wrap the port's own read handler rather than register a second one, which simavr refuses. */
    avr->io[io].r.c = read_pin_register;
    avr->io[io].r.param = h;
  }
}

/* INT0/INT1 reading low in level-trigger mode slow simavr 1.6 about 4x; the firmware uses no interrupts on them. */
static void relax_extint(void) {
  avr_extint_set_strict_lvl_trig(avr, 0, 0);
  avr_extint_set_strict_lvl_trig(avr, 1, 0);
}

static avr_cycle_count_t open_later(struct avr_t *a, avr_cycle_count_t when, void *param) {
  (void)a;
  (void)when;
  uintptr_t sw = (uintptr_t)param;
  closed[sw >> 8] &= (uint16_t)~(1u << (sw & 0xFF));
  return 0;
}

static uint64_t sim_us(void) { return avr->cycle * 1000000ull / avr->frequency; }

static void reply(const char *text) {
  printf("ok%s%s\n", *text ? " " : "", text);
  fflush(stdout);
}

static void run_command(char *line) {
  int r, c;
  unsigned long us;
  char text[64];
  if (sscanf(line, "close %d %d", &r, &c) == 2 && r < nrows && c < ncols) {
    closed[r] |= (uint16_t)(1u << c);
    reply("");
  } else if (sscanf(line, "open %d %d", &r, &c) == 2 && r < nrows && c < ncols) {
    closed[r] &= (uint16_t)~(1u << c);
    reply("");
  } else if (sscanf(line, "pulse %d %d %lu", &r, &c, &us) == 3 && r < nrows && c < ncols) {
    closed[r] |= (uint16_t)(1u << c);
    avr_cycle_timer_register_usec(avr, (uint32_t)us, open_later, (void *)(uintptr_t)((r << 8) | c));
    reply("");
  } else if (strncmp(line, "set", 3) == 0) {
    char *p = line + 3;
    for (r = 0; r < nrows; r++) closed[r] = (uint16_t)strtoul(p, &p, 16);
    reply("");
  } else if (strcmp(line, "reset") == 0) {
    avr_reset(avr); /* drops cycle timers: pending pulses stay closed */
    relax_extint();
    reply("");
  } else if (strcmp(line, "time") == 0) {
    snprintf(text, sizeof text, "%llu", (unsigned long long)sim_us());
    reply(text);
  } else {
    printf("error %s\n", line);
    fflush(stdout);
  }
}

/* Commands from stdin are handed to the simulation thread, which applies them between two instructions. */
static void *simulate(void *unused) {
  (void)unused;
  pthread_mutex_lock(&lock);
  while (!running) pthread_cond_wait(&started, &lock);
  pthread_mutex_unlock(&lock);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  uint64_t start_us = sim_us(), next_check = 0;
  for (;;) {
    if (atomic_load(&have_pending)) {
      pthread_mutex_lock(&lock);
      char *line = pending, *end;
      while ((end = strchr(line, '\n'))) {
        *end = 0;
        run_command(line);
        line = end + 1;
      }
      pending[0] = 0;
      atomic_store(&have_pending, 0);
      pthread_mutex_unlock(&lock);
    }
    int state = avr_run(avr);
    if (state == cpu_Done || state == cpu_Crashed) {
      fprintf(stderr, "grid_harness: the CPU stopped (state %d)\n", state);
      exit(3);
    }
    if (throttle && avr->cycle >= next_check) {
      next_check = avr->cycle + avr->frequency / 2000; /* every half millisecond */
      struct timespec now;
      clock_gettime(CLOCK_MONOTONIC, &now);
      int64_t wall = (int64_t)(now.tv_sec - t0.tv_sec) * 1000000 + (now.tv_nsec - t0.tv_nsec) / 1000;
      int64_t ahead = (int64_t)(sim_us() - start_us) - wall;
      if (ahead > 200) usleep((useconds_t)ahead);
    }
  }
  return NULL;
}


int main(int argc, char **argv) {
  const char *mcu = "atmega328p", *elf = NULL;
  int opt;
  while ((opt = getopt(argc, argv, "m:f:r:c:t")) != -1) {
    switch (opt) {
      case 'm': mcu = optarg; break;
      case 'f': elf = optarg; break;
      case 'r': nrows = parse_pins(optarg, rows); break;
      case 'c': ncols = parse_pins(optarg, cols); break;
      case 't': throttle = 1; break;
      default:
        fprintf(stderr, "usage: grid_harness -m MCU -f ELF -r ROWPINS -c COLPINS [-t]\n");
        return 2;
    }
  }
  if (!elf || !nrows || !ncols) {
    fprintf(stderr, "grid_harness: -f, -r and -c are required\n");
    return 2;
  }
  elf_firmware_t firmware;
  memset(&firmware, 0, sizeof firmware);
  if (elf_read_firmware(elf, &firmware) != 0) {
    fprintf(stderr, "grid_harness: cannot read %s\n", elf);
    return 2;
  }
  firmware.frequency = 16000000;
  avr = avr_make_mcu_by_name(mcu);
  if (!avr) {
    fprintf(stderr, "grid_harness: unknown MCU %s\n", mcu);
    return 2;
  }
  avr_init(avr);
  avr->log = LOG_ERROR;
  avr_load_firmware(avr, &firmware);
  relax_extint();
  hook_columns();
  uart_pty_init(avr, &pty);
  uart_pty_connect(&pty, '0');
  printf("pty %s\n", pty.port[0].slavename);
  fflush(stdout);

  pthread_t thread;
  pthread_create(&thread, NULL, simulate, NULL);
  char line[512];
  while (fgets(line, sizeof line, stdin)) {
    if (strncmp(line, "quit", 4) == 0) break;
    if (strncmp(line, "go", 2) == 0) {
      pthread_mutex_lock(&lock);
      running = 1;
      pthread_cond_signal(&started);
      pthread_mutex_unlock(&lock);
      reply("");
      continue;
    }
    pthread_mutex_lock(&lock);
    if (!running) { /* the CPU has not started: set things up directly */
      line[strcspn(line, "\n")] = 0;
      run_command(line);
      pthread_mutex_unlock(&lock);
      continue;
    }
    if (strlen(pending) + strlen(line) < sizeof pending) strcat(pending, line);
    atomic_store(&have_pending, 1);
    pthread_mutex_unlock(&lock);
  }
  uart_pty_stop(&pty);
  return 0;
}
