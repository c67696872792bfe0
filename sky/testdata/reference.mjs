// The generator of reference.json: the Sun's and the Moon's positions, the Moon's illuminated
// fraction and the twilight times for a few places and dates of 2026, computed by
// astronomy-engine, an independent implementation, so package sky's tests compare against
// something it did not compute itself. To regenerate, npm install astronomy-engine in a
// scratch folder outside the repository (reference.json was made with astronomy-engine 2.1.19),
// then from the repository root:
//
//	NODE_PATH=/path/to/scratch/node_modules node sky/testdata/reference.mjs > sky/testdata/reference.json
import { createRequire } from 'node:module';
import path from 'node:path';

// NODE_PATH is honoured by require, not by import, so resolve the module through it.
const require = createRequire(path.join(process.cwd(), 'noop.js'));
const A = require('astronomy-engine');

const sites = [
  { name: 'null island', lat: 0, lon: 0 },
  { name: 'berlin', lat: 52.5, lon: 13.4 },
  { name: 'oslo', lat: 60, lon: 10 },
  { name: 'tromso', lat: 70, lon: 25 },
  { name: 'cape town', lat: -33.9, lon: 18.4 },
  { name: 'mauna kea', lat: 19.8, lon: -155.5 },
];

// The levels of the Sun's centre, without refraction, that package sky uses.
const levels = { sunset: -0.833, civil: -6, nautical: -12, astronomical: -18 };

const dates = [];
for (let m = 0; m < 12; m++) {
  for (const d of [1, 15]) dates.push([2026, m, d]);
}
// The solstices and equinoxes, and the first night of Tromsø's polar night and its last.
dates.push([2026, 5, 21], [2026, 11, 21], [2026, 2, 20], [2026, 8, 23], [2026, 10, 25], [2026, 0, 16]);

const round = (x, n) => Math.round(x * 10 ** n) / 10 ** n;
const hours = 3600 * 1000;

function horizon(body, time, obs) {
  const eq = A.Equator(body, time, obs, true, true);
  const hor = A.Horizon(time, obs, eq.ra, eq.dec);
  return { alt: round(hor.altitude, 5), az: round(hor.azimuth, 5) };
}

function events(site, y, m, d) {
  const obs = new A.Observer(site.lat, site.lon, 0);
  // Local noon by longitude, the start of the night that follows the date.
  const noon = new Date(Date.UTC(y, m, d, 12) - (site.lon / 15) * hours);
  const next = new Date(noon.getTime() + 24 * hours);
  const out = {};
  for (const [name, alt] of Object.entries(levels)) {
    const dusk = A.SearchAltitude(A.Body.Sun, obs, -1, noon, 1, alt);
    // Start the dawn search a minute after dusk: started on the root itself, the search can
    // find the dusk again as a dawn.
    const from = dusk ? new Date(dusk.date.getTime() + 60 * 1000) : noon;
    const left = (next.getTime() - from.getTime()) / (24 * hours);
    const dawn = A.SearchAltitude(A.Body.Sun, obs, +1, from, left, alt);
    const sunAtNoon = horizon(A.Body.Sun, noon, obs).alt;
    let kind = 'falls';
    if (!dusk && !dawn) kind = sunAtNoon > alt ? 'never' : 'all day';
    out[name] = {
      dusk: dusk ? dusk.date.toISOString() : null,
      dawn: dawn ? dawn.date.toISOString() : null,
      kind,
    };
  }
  return out;
}

const positions = [];
const illumination = [];
const nights = [];
for (const [y, m, d] of dates) {
  for (const h of [0, 5.5, 11, 17.25, 22.75]) {
    const t = new Date(Date.UTC(y, m, d) + h * hours);
    illumination.push({ time: t.toISOString(), fraction: round(A.Illumination(A.Body.Moon, t).phase_fraction, 5) });
    for (const s of sites) {
      const obs = new A.Observer(s.lat, s.lon, 0);
      positions.push({
        lat: s.lat, lon: s.lon, time: t.toISOString(),
        sun: horizon(A.Body.Sun, t, obs),
        moon: horizon(A.Body.Moon, t, obs),
      });
    }
  }
  for (const s of sites) {
    nights.push({ lat: s.lat, lon: s.lon, date: `${y}-${String(m + 1).padStart(2, '0')}-${String(d).padStart(2, '0')}`, ...events(s, y, m, d) });
  }
}

process.stdout.write(JSON.stringify({ positions, illumination, nights }) + '\n');
