// Boards for the node tests: a grid[y][x] of 0 empty, 1 black, 2 white, its board code
// (quadrant q = x/3 * 2 + y/3 in bits 16q, radix-3 digit 3*(x%3) + y%3) and compact text form
// (rows top to bottom, _ 0 1), and seeded random midgame grids with no five in a row.

export function encode(grid) {
  let code = 0n;
  for (let q = 3; q >= 0; q--) {
    let packed = 0;
    for (let i = 8; i >= 0; i--)
      packed = 3 * packed + grid[3 * (q & 1) + (i % 3)][3 * (q >> 1) + Math.floor(i / 3)];
    code = (code << 16n) | BigInt(packed);
  }
  return code.toString();
}

export function compact(grid) {
  let text = '';
  for (let y = 5; y >= 0; y--)
    for (let x = 0; x < 6; x++) text += '_01'[grid[y][x]];
  return text;
}

export function hasFive(grid, colour) {
  for (let y = 0; y < 6; y++)
    for (let x = 0; x < 6; x++)
      for (const [dx, dy] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
        let k = 0;
        while (k < 5 && x + k * dx < 6 && y + k * dy >= 0 && y + k * dy < 6 &&
               grid[y + k * dy][x + k * dx] === colour) k++;
        if (k === 5) return true;
      }
  return false;
}

// A legal midgame grid of `stones` stones (black first) with no five in a row, the same for
// the same seed.
export function midgameGrid(stones, seed) {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (;;) {
    const grid = [0, 1, 2, 3, 4, 5].map(() => [0, 0, 0, 0, 0, 0]);
    const cells = [...Array(36).keys()];
    for (let i = 35; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [cells[i], cells[j]] = [cells[j], cells[i]];
    }
    for (let k = 0; k < stones; k++) grid[cells[k] % 6][Math.floor(cells[k] / 6)] = 1 + (k & 1);
    if (!hasFive(grid, 1) && !hasFive(grid, 2)) return grid;
  }
}
