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
 *   rowrc US          a row line left floating (released without being driven high) holds the columns of its closed
 *                     switches low US microseconds longer: their pull-ups must charge the row's line through the diodes
 *   diode R C ok|reversed|shorted|open   the diode in series with switch (R, C): a reversed one conducts from the
 *                     row to the column only, a shorted one (or a solder bridge across it) both ways
 *   fights            answers "ok N US PINS D": how often a pin driven high was joined to a pin driven low through
 *                     closed switches and conducting diodes (each time it started), for how many microseconds in all,
 *                     the pins of the last such fight ("-" for none), and how often a column pin was driven low
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
 * The matrix model: every row and column line is a node; a closed switch joins its column to its row through its
 * diode, which conducts from the column to the row (reversed: from the row to the column; shorted: both ways). A pin
 * is driven low (DDR bit set, PORT bit clear), driven high (both set) or an input (pulled up when its PORT bit is
 * set). A line that is not driven reads 0 when current can flow from it, through conducting diodes, to a pin driven
 * low (for a column joined straight to a row, once that row has been low long enough for the line to fall), or when
 * a row it was joined to was released too recently for its pull-up to bring it back; otherwise 1. A line that a
 * driven-high pin also reaches is fought over and reads at random, as a real pin between two drivers does. It is
 * computed when the firmware reads a PIN register, so it is exact whatever the order of the firmware's writes.
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
static int row_recharged[MAX_LINES];            /* driven high since it was last released */
static uint64_t row_rc;                         /* cycles a floating released row holds its columns low longer */
enum { DIODE_OK, DIODE_REVERSED, DIODE_SHORTED, DIODE_OPEN };
static uint8_t diode[MAX_LINES][MAX_LINES];
static uint64_t fight_count, fight_cycles, fight_since; /* fight_since: cycle the present fight began, 0 none */
static char fight_pins[64] = "-";
static uint64_t column_drives;                  /* times a column pin was driven low */
static int column_driven[MAX_LINES];
static uint32_t noise_state = 0x2545F491u;      /* what a fought-over pin reads */

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

/* The network: nodes 0..nrows-1 are the row lines, nrows.. the column lines. */
#define NODES (2 * MAX_LINES)
enum { FREE, PULLED_UP, DRIVEN_LOW, DRIVEN_HIGH };

static pin_t *node_pin(int n) { return n < nrows ? &rows[n] : &cols[n - nrows]; }

static int drive_of(int n) {
  pin_t *p = node_pin(n);
  int ddr = avr->data[p->pin_addr + 1] >> p->bit & 1, port = avr->data[p->pin_addr + 2] >> p->bit & 1;
  return ddr ? (port ? DRIVEN_HIGH : DRIVEN_LOW) : (port ? PULLED_UP : FREE);
}

/* Whether current can flow from node a to node b through one closed switch and its diode. */
static int conducts(int a, int b) {
  int a_row = a < nrows, b_row = b < nrows;
  if (a_row == b_row) return 0;
  int r = a_row ? a : b, c = (a_row ? b : a) - nrows;
  if (!(switches(r) & (1u << c))) return 0;
  uint8_t d = diode[r][c];
  if (d == DIODE_OPEN) return 0;
  if (d == DIODE_SHORTED) return 1;
  return a_row ? d == DIODE_REVERSED : d == DIODE_OK; /* an intact diode: column (anode) to row (cathode) */
}

/* What resolve() found, kept until a pin or a switch changes (generation) or a low row settles: the firmware reads
 * its PIN registers far more often than anything changes. */
static uint64_t generation = 1, cached_generation;
static uint32_t cached_settled;
static int cached_low[NODES], cached_high[NODES], cached_fight[2]; /* high[n]: 1 + the driven-high pin it comes from */

/* low[n]: current flows from n to a pin driven low (a column joined straight to a low row only once the row has been
 * low for the column's fall time: `settled` has a bit per row); high[n]: current flows into n from a pin driven high
 * (1 + that pin's node). A driven pin holds its own level: nothing passes through it. fight: a driven-high pin and a
 * driven-low one that current flows between (-1: none). */
static void resolve(uint32_t settled, int **low, int **high, int **fight) {
  *low = cached_low;
  *high = cached_high;
  *fight = cached_fight;
  if (cached_generation == generation && cached_settled == settled) return;
  cached_generation = generation;
  cached_settled = settled;
  int n_all = nrows + ncols, drives[NODES], edges[2 * MAX_LINES * MAX_LINES][2], n_edges = 0;
  for (int n = 0; n < n_all; n++) {
    drives[n] = drive_of(n);
    cached_low[n] = drives[n] == DRIVEN_LOW;
    cached_high[n] = drives[n] == DRIVEN_HIGH ? 1 + n : 0;
  }
  for (int r = 0; r < nrows; r++)
    for (int c = 0; c < ncols; c++) {
      if (conducts(nrows + c, r)) {
        edges[n_edges][0] = nrows + c;
        edges[n_edges++][1] = r;
      }
      if (conducts(r, nrows + c)) {
        edges[n_edges][0] = r;
        edges[n_edges++][1] = nrows + c;
      }
    }
  cached_fight[0] = cached_fight[1] = -1;
  for (int changed = 1; changed;) {
    changed = 0;
    for (int e = 0; e < n_edges; e++) {
      int a = edges[e][0], b = edges[e][1];
      int free_a = drives[a] != DRIVEN_LOW && drives[a] != DRIVEN_HIGH;
      int free_b = drives[b] != DRIVEN_LOW && drives[b] != DRIVEN_HIGH;
      if (free_a && !cached_low[a] && cached_low[b] && (b >= nrows || drives[b] != DRIVEN_LOW || (settled >> b & 1)))
        cached_low[a] = changed = 1;
      if (cached_high[a] && free_b && !cached_high[b]) cached_high[b] = cached_high[a], changed = 1;
      if (cached_high[a] && drives[b] == DRIVEN_LOW) {
        cached_fight[0] = cached_high[a] - 1;
        cached_fight[1] = b;
      }
    }
  }
}

/* Rows driven low long enough for the columns joined straight to them to have fallen. A row low for less than a
 * column's fall time counts for none of them: a column's fall time is the longest it takes, and the harness's tests
 * give one column a slow line at a time. */
static uint32_t settled_rows(uint64_t now) {
  uint64_t slowest = 0;
  for (int c = 0; c < ncols; c++)
    if (tau_down[c] > slowest) slowest = tau_down[c];
  if (!slowest) return 0xFFFFFFFFu; /* every low row counts at once (and resolve()'s answer is shared with fights) */
  uint32_t settled = 0;
  for (int r = 0; r < nrows; r++)
    if (row_low[r] && now - row_changed[r] >= slowest) settled |= 1u << r;
  return settled;
}

/* A fight: a pin driven high joined to a pin driven low. Checked whenever a pin or the matrix changes. */
static void check_fights(void) {
  int *low, *high, *fight;
  uint64_t now = now_cycles();
  resolve(0xFFFFFFFFu, &low, &high, &fight); /* fall times do not matter to a fight */
  int fighting = fight[0] >= 0;
  if (fighting) {
    int h = fight[0], l = fight[1];
    snprintf(fight_pins, sizeof fight_pins, "%s%d-high,%s%d-low", h < nrows ? "row" : "col",
             h < nrows ? h : h - nrows, l < nrows ? "row" : "col", l < nrows ? l : l - nrows);
  }
  if (fighting && !fight_since) {
    fight_since = now ? now : 1;
    fight_count++;
  } else if (!fighting && fight_since) {
    fight_cycles += now - fight_since;
    fight_since = 0;
  }
}

/* Whether line n reads low now. */
static int line_low(int n, uint64_t now) {
  int drive = drive_of(n);
  if (drive == DRIVEN_LOW) return 1;
  if (drive == DRIVEN_HIGH) return 0;
  int *low, *high, *fight;
  resolve(settled_rows(now), &low, &high, &fight);
  if (low[n] && high[n]) { /* fought over: whatever the pin's threshold makes of it */
    noise_state ^= noise_state << 13;
    noise_state ^= noise_state >> 17;
    noise_state ^= noise_state << 5;
    return noise_state & 1;
  }
  if (low[n]) return 1;
  if (n < nrows) return 0;
  int c = n - nrows;
  for (int r = 0; r < nrows; r++) { /* a row released too recently for this column to have climbed back */
    if (row_low[r] || !conducts(n, r)) continue;
    uint64_t recover = tau_up[c] + (row_recharged[r] ? 0 : row_rc);
    if (row_changed[r] && now - row_changed[r] < recover) return 1;
  }
  return 0;
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
  for (int n = 0; n < nrows + ncols; n++) {
    pin_t *p = node_pin(n);
    if (p->pin_addr != addr) continue;
    if (line_low(n, now))
      value &= (uint8_t)~(1u << p->bit);
    else
      value |= (uint8_t)(1u << p->bit);
  }
  return value;
}

/* After a write to a row's or a column's DDR or PORT register: note which rows changed, whether a released row was
 * driven high since, whether pins now fight, and time the scans (row 0 driven low starts one, the last row released
 * ends it). */
static void note_rows(void) {
  uint64_t now = now_cycles();
  generation++;
  check_fights();
  for (int c = 0; c < ncols; c++) {
    int low = drive_of(nrows + c) == DRIVEN_LOW;
    if (low && !column_driven[c]) column_drives++;
    column_driven[c] = low;
  }
  for (int r = 0; r < nrows; r++) {
    int drive = drive_of(r), low = drive == DRIVEN_LOW;
    if (drive == DRIVEN_HIGH) row_recharged[r] = 1;
    if (low == row_low[r]) continue;
    row_low[r] = low;
    row_changed[r] = now;
    if (!low) row_recharged[r] = drive == DRIVEN_HIGH;
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
  for (int n = 0; n < nrows + ncols; n++) {
    pin_t *p = node_pin(n);
    hook(p->pin_addr, 1);
    hook((uint16_t)(p->pin_addr + 1), 0);
    hook((uint16_t)(p->pin_addr + 2), 0);
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
  generation++;
  check_fights();
}

static void add_event(uint64_t at, int row, int col, int op, uint64_t period, long remaining) {
  if (nevents < MAX_EVENTS) events[nevents++] = (event_t){at, row, col, op, period, remaining};
}

static void apply(event_t *e) {
  uint16_t bit = (uint16_t)(1u << e->col);
  generation++;
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
    check_fights();
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
  char text[96], state[16];
  generation++; /* whatever it changes, the network is looked at afresh */
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
  } else if (sscanf(line, "rowrc %lu", &us) == 1) {
    row_rc = us_to_cycles(us);
    reply("");
  } else if (sscanf(line, "diode %d %d %15s", &r, &c, state) == 3 && r < nrows && c < ncols) {
    static const char *kinds[] = {"ok", "reversed", "shorted", "open"};
    int kind = -1;
    for (int k = 0; k < 4; k++)
      if (strcmp(state, kinds[k]) == 0) kind = k;
    if (kind < 0) {
      printf("error %s\n", line);
      fflush(stdout);
      return;
    }
    diode[r][c] = (uint8_t)kind;
    reply("");
  } else if (strcmp(line, "fights") == 0) {
    uint64_t cycles = fight_cycles + (fight_since ? now_cycles() - fight_since : 0);
    snprintf(text, sizeof text, "%llu %llu %s %llu", (unsigned long long)fight_count,
             (unsigned long long)(cycles * 1000000ull / avr->frequency), fight_pins,
             (unsigned long long)column_drives);
    reply(text);
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

/* What the chip sends reaches the host through simavr's pty part: a 512-byte queue that the part's own thread
 * empties into the pty, dropping a byte it has no room for. On a loaded host that thread may not run for the 44 ms
 * the queue lasts at 115200 baud, while the simulation, behind real time, catches up at many times the chip's
 * speed. A USB-serial chip hands its bytes to the kernel, which keeps them for a host that reads late; so the chip
 * waits (its clock stops, as if no time passed for it) while the queue is nearly full. If it stays full for 0.2 s
 * (nothing drains the pty), the chip runs on and the bytes it sends are lost, as a board's are when no host reads,
 * until the queue is half empty again. */
static void hold_uart_back(void) {
  static int given_up;
  const uart_pty_fifo_t *to_host = &pty.port[0].in;
  for (int waited = 0;; waited++) {
    unsigned queued = (unsigned)(to_host->write - to_host->read) & (uart_pty_fifo_fifo_size - 1);
    if (queued < uart_pty_fifo_fifo_size / 2) given_up = 0;
    if (queued < uart_pty_fifo_fifo_size - 64 || given_up) return;
    if (waited == 2000) {
      given_up = 1;
      return;
    }
    usleep(100);
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
        check_fights();
        line = end + 1;
      }
      pending[0] = 0;
      atomic_store(&have_pending, 0);
      pthread_mutex_unlock(&lock);
    }
    if (nevents) run_events();
    trail[ntrail++ & 31] = avr->pc;
    hold_uart_back();
    int state = avr_run(avr);
    if (avr->cycle < last_cycle) cycle_base += last_cycle - avr->cycle;
    last_cycle = avr->cycle;
    if (avr->pc == avr->reset_pc && (avr->data[MCUSR_ADDR] & WDRF)) { /* the watchdog reset the chip */
      avr->data[MCUSR_ADDR] = WDRF; /* simavr keeps the flags of the reset before; the chip clears them */
      watchdog_resets++;
      relax_extint();
      generation++;
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
