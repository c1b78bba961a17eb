/*
 * Runs the reed-grid firmware in simavr as a board runs it: the sketch at address 0, the board's own bootloader at
 * the start of the boot section its fuses choose (BOOTRST: the chip starts there), a diode switch matrix on its
 * pins and UART0 on a pseudo-terminal whose opening resets the chip, as a USB-serial chip's DTR line does through
 * the board's 100 nF capacitor.
 *
 *   grid_harness -m atmega2560 -f reed_grid.elf -r A0,A1,... -c F0,F1,... [-b BOOT.hex -F HIGHFUSE] [-t] [-n]
 *
 * -r and -c name the port and bit of each row and column pin in order (the test side reads them from pins.h);
 * -b loads a bootloader (Intel hex) and -F gives the high fuse whose BOOTSZ bits place the boot section (from the
 * core's boards.txt); -t throttles the simulation to real time; -n: opening the pty does not reset (a board with
 * the auto-reset disabled). The harness prints "pty /dev/pts/N" and takes commands on stdin, one a line, each
 * answered by a line starting "ok" once it has taken effect in simulated time:
 *   go                power the board up (after the host has opened the pty: opening it flushes what came before)
 *   close R C | open R C      one switch
 *   pulse R C US      close a switch now and open it US microseconds of simulated time later
 *   chatter R C US N  toggle a switch every US microseconds, N times
 *   noise US          toggle every switch of the matrix every US microseconds (0 stops)
 *   ripple US         every US microseconds toggle one column's switches in every row, the next column each time
 *                     (0 stops): each row's readings move at as many different times as it has switches
 *   stuck R C closed|open|free   a switch that stays closed (magnetised, welded) or open (cracked), or works again
 *   rc C DOWN UP      column C's line takes DOWN us to fall below the input's low threshold once a closed switch
 *                     pulls it and UP us to climb back above the high threshold through its pull-up (wire capacitance)
 *   set W0 W1 ...     the whole matrix at once, one hex word of closed columns per row
 *   reset             the reset pin pulled low and released (EXTRF), as DTR or the reset button does
 *   power             power cycle (PORF), as unplugging and plugging the USB cable does
 *   hang              the sketch stops dead (interrupts off, a jump to itself), as after a fault: the watchdog's test
 *   where             answers "ok" and the last 32 program counters (bytes, hex)
 *   time              answers "ok <simulated microseconds since power-up>"
 *   resets            answers "ok <resets by DTR> <watchdog resets> <power-ups>"
 *   scans             answers "ok D:G D:G ..." for the scans since the last "scans": D the cycles from driving the
 *                     first row to releasing the last, G the cycles from the previous scan's start to this one's
 *   quit
 * The matrix model: a column pin reads 0 when some row whose switch in that column is closed is driven low (its DDR
 * bit set, its PORT bit clear) long enough for the line to fall, or was released too recently for it to climb back;
 * otherwise 1 (the pull-up). It is computed when the firmware reads the PIN register, so it is exact whatever the
 * order of the firmware's writes.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "avr_extint.h"
#include "sim_avr.h"
#include "sim_elf.h"
#include "avr_uart.h"
#include "uart_pty.h"

#define MAX_LINES 16
#define MAX_EVENTS 64
#define MAX_SCANS 8192
#define MCUSR_ADDR 0x54 /* the same data address on the ATmega328P and the ATmega2560 */
#define PORF 0x01
#define EXTRF 0x02
#define WDRF 0x08

typedef struct {
  char port;
  uint8_t bit;
  uint16_t pin_addr; /* data address of the PINx register; DDRx and PORTx follow it */
} pin_t;

static avr_t *avr;
static uart_pty_t pty;
static pin_t rows[MAX_LINES], cols[MAX_LINES];
static int nrows, ncols;
/* Touched by the simulation thread only (commands run between two instructions). */
static uint16_t closed[MAX_LINES];              /* closed[row] bit c: the magnet holds switch (row, c) closed */
static uint16_t stuck_closed[MAX_LINES], stuck_open[MAX_LINES];
static uint64_t tau_down[MAX_LINES], tau_up[MAX_LINES]; /* cycles, per column */
static int row_low[MAX_LINES];                  /* row driven low now */
static uint64_t row_changed[MAX_LINES];         /* cycle of its last change */

typedef struct {
  uint64_t at;       /* absolute cycle */
  int row, col;      /* col -1: every switch; col -2: a ripple, row counting its steps */
  int op;            /* 0 open, 1 close, 2 toggle */
  uint64_t period;   /* toggles: cycles between them */
  long remaining;    /* toggles still to do; -1 forever */
} event_t;
static event_t events[MAX_EVENTS];
static int nevents;

static uint32_t scan_cycles[MAX_SCANS], scan_gaps[MAX_SCANS];
static int nscans;
static uint64_t scan_started, last_scan_start, scan_gap;

/* Resets clear simavr's cycle counter: the harness keeps time across them. */
static uint64_t cycle_base, last_cycle;
static int dtr_resets, watchdog_resets, power_ups;

typedef struct {
  uint16_t addr;
  avr_io_read_t read;
  void *read_param;
  avr_io_write_t write;
  void *write_param;
} hooked_t;
static hooked_t hooked[24];
static int nhooked;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t started = PTHREAD_COND_INITIALIZER;
static char pending[4096];
static atomic_int have_pending, dtr_pending;
static int running;
static int throttle;
static uint32_t trail[32]; /* the last program counters, printed when the CPU crashes */
static int ntrail;

static uint64_t now_cycles(void) { return cycle_base + avr->cycle; }
static uint64_t us_to_cycles(uint64_t us) { return us * avr->frequency / 1000000ull; }
static uint64_t sim_us(void) { return now_cycles() * 1000000ull / avr->frequency; }

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

static uint16_t switches(int r) { return (uint16_t)((closed[r] | stuck_closed[r]) & ~stuck_open[r]); }

/* Whether column c's line reads low now. */
static int column_low(int c, uint64_t now) {
  int low = 0;
  for (int r = 0; r < nrows && !low; r++) {
    if (!(switches(r) & (1u << c))) continue;
    if (row_low[r])
      low = now - row_changed[r] >= tau_down[c];
    else
      low = now - row_changed[r] < tau_up[c]; /* released: still climbing back through the pull-up */
  }
  return low;
}

static hooked_t *find_hook(uint16_t addr) {
  for (int i = 0; i < nhooked; i++)
    if (hooked[i].addr == addr) return &hooked[i];
  return NULL;
}

static uint8_t read_pin_register(struct avr_t *a, avr_io_addr_t addr, void *param) {
  hooked_t *h = (hooked_t *)param;
  uint8_t value = h->read ? h->read(a, addr, h->read_param) : a->data[addr];
  uint64_t now = now_cycles();
  for (int c = 0; c < ncols; c++) {
    if (cols[c].pin_addr != addr) continue;
    if (column_low(c, now))
      value &= (uint8_t)~(1u << cols[c].bit);
    else
      value |= (uint8_t)(1u << cols[c].bit);
  }
  return value;
}

/* After a write to a row's DDR or PORT register: note which rows changed, and time the scans (row 0 driven low
 * starts one, the last row released ends it). */
static void note_rows(void) {
  uint64_t now = now_cycles();
  for (int r = 0; r < nrows; r++) {
    uint8_t ddr = avr->data[rows[r].pin_addr + 1], port = avr->data[rows[r].pin_addr + 2];
    int low = (ddr >> rows[r].bit & 1) && !(port >> rows[r].bit & 1);
    if (low == row_low[r]) continue;
    row_low[r] = low;
    row_changed[r] = now;
    if (r == 0 && low) {
      scan_gap = last_scan_start ? now - last_scan_start : 0;
      scan_started = last_scan_start = now;
    }
    if (r == nrows - 1 && !low && scan_started && nscans < MAX_SCANS) {
      scan_cycles[nscans] = (uint32_t)(now - scan_started);
      scan_gaps[nscans++] = (uint32_t)scan_gap;
      scan_started = 0;
    }
  }
}

static void write_row_register(struct avr_t *a, avr_io_addr_t addr, uint8_t value, void *param) {
  hooked_t *h = (hooked_t *)param;
  if (h->write)
    h->write(a, addr, value, h->write_param);
  else
    a->data[addr] = value;
  note_rows();
}

/* Wrap a register's own handlers rather than register second ones, which simavr refuses. */
static void hook(uint16_t addr, int reads) {
  hooked_t *h = find_hook(addr);
  if (!h) {
    h = &hooked[nhooked++];
    memset(h, 0, sizeof *h);
    h->addr = addr;
  }
  int io = AVR_DATA_TO_IO(addr);
  if (reads && avr->io[io].r.c != read_pin_register) {
    h->read = avr->io[io].r.c;
    h->read_param = avr->io[io].r.param;
    avr->io[io].r.c = read_pin_register;
    avr->io[io].r.param = h;
  }
  if (!reads && avr->io[io].w.c != write_row_register) {
    h->write = avr->io[io].w.c;
    h->write_param = avr->io[io].w.param;
    avr->io[io].w.c = write_row_register;
    avr->io[io].w.param = h;
  }
}

static void hook_matrix(void) {
  for (int c = 0; c < ncols; c++) hook(cols[c].pin_addr, 1);
  for (int r = 0; r < nrows; r++) {
    hook((uint16_t)(rows[r].pin_addr + 1), 0);
    hook((uint16_t)(rows[r].pin_addr + 2), 0);
  }
}

/* INT0/INT1 reading low in level-trigger mode slow simavr 1.6 about 4x; the firmware uses no interrupts on them. */
static void relax_extint(void) {
  avr_extint_set_strict_lvl_trig(avr, 0, 0);
  avr_extint_set_strict_lvl_trig(avr, 1, 0);
}

/* The chip's reset: registers cleared and the CPU at the reset vector (the boot section when BOOTRST is
 * programmed), MCUSR saying why, as the bootloaders read it to decide whether to wait for an upload. */
static void chip_reset(uint8_t why) {
  uint64_t before = avr->cycle;
  avr_reset(avr);
  cycle_base += before - avr->cycle; /* whether or not this simavr restarts its cycle count */
  last_cycle = avr->cycle;
  relax_extint();
  avr->data[MCUSR_ADDR] = why;
  for (int r = 0; r < nrows; r++) row_low[r] = 0;
  scan_started = last_scan_start = 0;
}

static void add_event(uint64_t at, int row, int col, int op, uint64_t period, long remaining) {
  if (nevents < MAX_EVENTS) events[nevents++] = (event_t){at, row, col, op, period, remaining};
}

static void apply(event_t *e) {
  uint16_t bit = (uint16_t)(1u << e->col);
  if (e->col == -2) { /* ripple: the next column of every row */
    int c = e->row++ % ncols;
    for (int r = 0; r < nrows; r++) closed[r] ^= (uint16_t)(1u << c);
  } else if (e->col < 0) { /* noise: the whole matrix flips between all open and all closed */
    uint16_t next = (closed[0] & 1) ? 0 : (uint16_t)(ncols >= 16 ? 0xFFFF : (1u << ncols) - 1);
    for (int r = 0; r < nrows; r++) closed[r] = next;
  } else if (e->op == 0) {
    closed[e->row] &= (uint16_t)~bit;
  } else if (e->op == 1) {
    closed[e->row] |= bit;
  } else {
    closed[e->row] ^= bit;
  }
}

static void run_events(void) {
  uint64_t now = now_cycles();
  for (int i = 0; i < nevents;) {
    event_t *e = &events[i];
    if (e->at > now) {
      i++;
      continue;
    }
    apply(e);
    if (e->op == 2 && e->remaining != 0) {
      if (e->remaining > 0) e->remaining--;
      e->at += e->period;
      if (e->remaining != 0) {
        i++;
        continue;
      }
    }
    events[i] = events[--nevents];
  }
}

static void cancel_noise(void) {
  for (int i = 0; i < nevents;)
    if (events[i].col < 0)
      events[i] = events[--nevents];
    else
      i++;
}

static void reply(const char *text) {
  printf("ok%s%s\n", *text ? " " : "", text);
  fflush(stdout);
}

static void print_scans(void) {
  printf("ok");
  for (int i = 0; i < nscans; i++) printf(" %u:%u", scan_cycles[i], scan_gaps[i]);
  printf("\n");
  fflush(stdout);
  nscans = 0;
}

static void run_command(char *line) {
  int r, c;
  unsigned long us, down, up;
  long n;
  char text[64], state[16];
  if (sscanf(line, "close %d %d", &r, &c) == 2 && r < nrows && c < ncols) {
    closed[r] |= (uint16_t)(1u << c);
    reply("");
  } else if (sscanf(line, "open %d %d", &r, &c) == 2 && r < nrows && c < ncols) {
    closed[r] &= (uint16_t)~(1u << c);
    reply("");
  } else if (sscanf(line, "pulse %d %d %lu", &r, &c, &us) == 3 && r < nrows && c < ncols) {
    closed[r] |= (uint16_t)(1u << c);
    add_event(now_cycles() + us_to_cycles(us), r, c, 0, 0, 0);
    reply("");
  } else if (sscanf(line, "chatter %d %d %lu %ld", &r, &c, &us, &n) == 4 && r < nrows && c < ncols && us > 0) {
    add_event(now_cycles() + us_to_cycles(us), r, c, 2, us_to_cycles(us), n > 0 ? n : 1);
    reply("");
  } else if (sscanf(line, "noise %lu", &us) == 1) {
    cancel_noise();
    if (us) add_event(now_cycles() + us_to_cycles(us), 0, -1, 2, us_to_cycles(us), -1);
    reply("");
  } else if (sscanf(line, "ripple %lu", &us) == 1) {
    cancel_noise();
    if (us) add_event(now_cycles() + us_to_cycles(us), 0, -2, 2, us_to_cycles(us), -1);
    reply("");
  } else if (sscanf(line, "stuck %d %d %15s", &r, &c, state) == 3 && r < nrows && c < ncols) {
    uint16_t bit = (uint16_t)(1u << c);
    stuck_closed[r] &= (uint16_t)~bit;
    stuck_open[r] &= (uint16_t)~bit;
    if (strcmp(state, "closed") == 0) stuck_closed[r] |= bit;
    if (strcmp(state, "open") == 0) stuck_open[r] |= bit;
    reply("");
  } else if (sscanf(line, "rc %d %lu %lu", &c, &down, &up) == 3 && c < ncols) {
    tau_down[c] = us_to_cycles(down);
    tau_up[c] = us_to_cycles(up);
    reply("");
  } else if (strncmp(line, "set", 3) == 0) {
    char *p = line + 3;
    for (r = 0; r < nrows; r++) closed[r] = (uint16_t)strtoul(p, &p, 16);
    reply("");
  } else if (strcmp(line, "reset") == 0) {
    chip_reset(EXTRF);
    dtr_resets++;
    reply("");
  } else if (strcmp(line, "power") == 0) {
    chip_reset(PORF);
    power_ups++;
    reply("");
  } else if (strcmp(line, "time") == 0) {
    snprintf(text, sizeof text, "%llu", (unsigned long long)sim_us());
    reply(text);
  } else if (strcmp(line, "resets") == 0) {
    snprintf(text, sizeof text, "%d %d %d", dtr_resets, watchdog_resets, power_ups);
    reply(text);
  } else if (strcmp(line, "hang") == 0) {
    /* The sketch stops dead, as after a fault: interrupts off, the CPU in avr-libc's final "rjmp .-2". */
    uint32_t end = avr->reset_pc ? avr->reset_pc : avr->flashend;
    uint32_t at = 0;
    for (uint32_t a = 0; a + 1 < end && !at; a += 2)
      if (avr->flash[a] == 0xFF && avr->flash[a + 1] == 0xCF) at = a;
    if (!at) {
      printf("error no rjmp .-2 in the sketch\n");
      fflush(stdout);
      return;
    }
    avr->sreg[S_I] = 0;
    avr->pc = at;
    reply("");
  } else if (strcmp(line, "where") == 0) {
    printf("ok");
    for (int i = 0; i < 32; i++) printf(" %x", trail[(ntrail + i) & 31]);
    printf("\n");
    fflush(stdout);
  } else if (strcmp(line, "scans") == 0) {
    print_scans();
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
    if (atomic_exchange(&dtr_pending, 0)) {
      chip_reset(EXTRF);
      dtr_resets++;
    }
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
    if (nevents) run_events();
    trail[ntrail++ & 31] = avr->pc;
    int state = avr_run(avr);
    if (avr->cycle < last_cycle) cycle_base += last_cycle - avr->cycle;
    last_cycle = avr->cycle;
    if (avr->pc == avr->reset_pc && (avr->data[MCUSR_ADDR] & WDRF)) { /* the watchdog reset the chip */
      avr->data[MCUSR_ADDR] = WDRF; /* simavr keeps the flags of the reset before; the chip clears them */
      watchdog_resets++;
      relax_extint();
      for (int r = 0; r < nrows; r++) row_low[r] = 0;
      scan_started = last_scan_start = 0;
    }
    if (state == cpu_Done || state == cpu_Crashed) {
      fprintf(stderr, "grid_harness: the CPU stopped (state %d) at pc 0x%x after", state, avr->pc);
      for (int i = 0; i < 32; i++) fprintf(stderr, " %x", trail[(ntrail + i) & 31]);
      fprintf(stderr, "\n");
      exit(3);
    }
    if (throttle && now_cycles() >= next_check) {
      next_check = now_cycles() + avr->frequency / 2000; /* every half millisecond */
      struct timespec now;
      clock_gettime(CLOCK_MONOTONIC, &now);
      int64_t wall = (int64_t)(now.tv_sec - t0.tv_sec) * 1000000 + (now.tv_nsec - t0.tv_nsec) / 1000;
      int64_t ahead = (int64_t)(sim_us() - start_us) - wall;
      if (ahead > 200) usleep((useconds_t)ahead);
    }
  }
  return NULL;
}

/* DTR: every time a program opens the pty, the USB-serial chip pulls DTR low and the board's capacitor turns that
 * edge into a reset pulse. The pty cannot carry DTR, so the harness watches the opens (inotify) instead. The queue
 * of opens is read only under the lock, here and at power-up: an open made before "go" found an unpowered board and
 * must not reset it later, however late this thread runs. */
static int opens_fd = -1;

static int take_opens(void) { /* with the lock held: whether the pty was opened since the last call */
  char buffer[4096];
  int opened = 0;
  ssize_t n;
  while (opens_fd >= 0 && (n = read(opens_fd, buffer, sizeof buffer)) > 0) {
    for (char *p = buffer; p < buffer + n;) {
      struct inotify_event *event = (struct inotify_event *)p;
      if (event->mask & IN_OPEN) opened = 1;
      p += sizeof *event + event->len;
    }
  }
  return opened;
}

static void *watch_opens(void *unused) {
  (void)unused;
  struct pollfd ready = {.fd = opens_fd, .events = POLLIN};
  for (;;) {
    if (poll(&ready, 1, -1) <= 0) continue;
    pthread_mutex_lock(&lock);
    if (take_opens() && running) atomic_store(&dtr_pending, 1); /* an unpowered board has nothing to reset */
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

static void watch_pty(const char *path) {
  opens_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (opens_fd < 0 || inotify_add_watch(opens_fd, path, IN_OPEN) < 0) {
    fprintf(stderr, "grid_harness: cannot watch %s: %s\n", path, strerror(errno));
    exit(2);
  }
  pthread_t watcher;
  pthread_create(&watcher, NULL, watch_opens, NULL);
}

/* Intel hex into flash. simavr 1.6's read_ihex_chunks stops at the start-address records (types 03 and 05) that
 * Debian's optiboot and stk500v2 files carry, and then misplaces what follows; this reader takes every record type
 * the format has. Returns the lowest and highest address written. */
static void read_hex(const char *path, uint32_t *low, uint32_t *high) {
  FILE *file = fopen(path, "r");
  if (!file) {
    fprintf(stderr, "grid_harness: cannot read %s\n", path);
    exit(2);
  }
  char text[600];
  uint32_t base = 0;
  *low = UINT32_MAX;
  *high = 0;
  int number = 0;
  while (fgets(text, sizeof text, file)) {
    number++;
    if (text[0] != ':') continue;
    uint8_t bytes[260];
    int n = 0;
    for (char *p = text + 1; p[0] && p[1] && p[0] != '\r' && p[0] != '\n' && n < (int)sizeof bytes; p += 2) {
      unsigned value;
      if (sscanf(p, "%2x", &value) != 1) break;
      bytes[n++] = (uint8_t)value;
    }
    uint8_t sum = 0;
    for (int i = 0; i < n; i++) sum = (uint8_t)(sum + bytes[i]);
    if (n < 5 || n != bytes[0] + 5 || sum != 0) {
      fprintf(stderr, "grid_harness: %s line %d: bad record\n", path, number);
      exit(2);
    }
    uint32_t offset = (uint32_t)bytes[1] << 8 | bytes[2];
    switch (bytes[3]) {
      case 0: { /* data */
        uint32_t address = base + offset;
        if (address + bytes[0] > avr->flashend + 1) {
          fprintf(stderr, "grid_harness: %s line %d: address 0x%x beyond the flash\n", path, number, address);
          exit(2);
        }
        memcpy(avr->flash + address, bytes + 4, bytes[0]);
        if (address < *low) *low = address;
        if (address + bytes[0] - 1 > *high) *high = address + bytes[0] - 1;
        break;
      }
      case 1: fclose(file); return; /* end of file */
      case 2: base = ((uint32_t)bytes[4] << 8 | bytes[5]) << 4; break;  /* extended segment address */
      case 4: base = ((uint32_t)bytes[4] << 8 | bytes[5]) << 16; break; /* extended linear address */
      default: break; /* 03 and 05: start addresses, which the chip ignores (it starts at its reset vector) */
    }
  }
  fclose(file);
}

/* The bootloader at its own addresses, and BOOTRST: the chip starts at the boot section that the high fuse's BOOTSZ
 * bits size (ATmega328P: 256 to 2048 words, ATmega2560: 512 to 4096). */
static void load_bootloader(const char *hex, uint8_t high_fuse) {
  uint32_t smallest = avr->flashend >= 0x10000 ? 512 : 256; /* words */
  uint32_t words = smallest << (3 - ((high_fuse >> 1) & 3));
  uint32_t start = avr->flashend + 1 - 2 * words, low, high;
  read_hex(hex, &low, &high);
  if (low < start) {
    fprintf(stderr, "grid_harness: %s has code at 0x%x, below the boot section 0x%x-0x%x of fuse 0x%02X\n", hex, low,
            start, avr->flashend, high_fuse);
    exit(2);
  }
  avr->fuse[AVR_FUSE_HIGH] = high_fuse;
  if (!(high_fuse & 1)) avr->reset_pc = start; /* BOOTRST programmed (0) */
  avr->pc = avr->reset_pc;
  avr->codeend = avr->flashend;
}

int main(int argc, char **argv) {
  const char *mcu = "atmega328p", *elf = NULL, *boot = NULL;
  unsigned high_fuse = 0xFF;
  int no_dtr = 0;
  int opt;
  while ((opt = getopt(argc, argv, "m:f:r:c:b:F:tn")) != -1) {
    switch (opt) {
      case 'm': mcu = optarg; break;
      case 'f': elf = optarg; break;
      case 'r': nrows = parse_pins(optarg, rows); break;
      case 'c': ncols = parse_pins(optarg, cols); break;
      case 'b': boot = optarg; break;
      case 'F': high_fuse = (unsigned)strtoul(optarg, NULL, 16); break;
      case 't': throttle = 1; break;
      case 'n': no_dtr = 1; break;
      default:
        fprintf(stderr, "usage: grid_harness -m MCU -f ELF -r ROWPINS -c COLPINS [-b BOOT.hex -F HFUSE] [-t] [-n]\n");
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
  avr->log = getenv("GRID_HARNESS_LOG") ? atoi(getenv("GRID_HARNESS_LOG")) : LOG_ERROR;
  avr_load_firmware(avr, &firmware);
  if (boot) load_bootloader(boot, (uint8_t)high_fuse);
  avr->data[MCUSR_ADDR] = PORF;
  relax_extint();
  hook_matrix();
  uart_pty_init(avr, &pty);
  uart_pty_connect(&pty, '0');
  /* simavr sleeps a microsecond of wall time on every read of a UART status register that finds nothing: a
   * bootloader that polls the UART (optiboot, stk500v2, ATmegaBOOT) then runs 50 times slower than the chip. */
  uint32_t flags = 0;
  avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
  flags &= ~(uint32_t)AVR_UART_FLAG_POLL_SLEEP;
  avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
  printf("pty %s\n", pty.port[0].slavename);
  fflush(stdout);

  pthread_t thread;
  pthread_create(&thread, NULL, simulate, NULL);
  if (!no_dtr) watch_pty(pty.port[0].slavename);
  char line[512];
  while (fgets(line, sizeof line, stdin)) {
    if (strncmp(line, "quit", 4) == 0) break;
    if (strncmp(line, "go", 2) == 0) {
      pthread_mutex_lock(&lock);
      take_opens(); /* opens before power-up reset nothing */
      running = 1;
      power_ups++;
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
