// A seed for `giftcodes serve --seed`: the demo resellers (their keys unchanged) and `count` products,
// so the bench can list a catalog as large as real providers' without a flag only it would use.
import { writeFileSync } from 'node:fs';

export function catalogSeed(count) {
  const brands = ['Amazon', 'Apple', 'Google Play', 'Steam', 'Netflix', 'Spotify', 'Xbox', 'PlayStation'];
  const products = Array.from({ length: count }, (_, i) => {
    const brand = brands[i % brands.length];
    const price = 500 + (i % 40) * 250;
    return {
      id: `bench-${brand.toLowerCase().replace(/\s+/g, '-')}-${String(i).padStart(5, '0')}`,
      name: `${brand} Gift Card ${(price / 100).toFixed(2)} #${i}`,
      brand,
      price,
      currency: 'USD',
    };
  });
  // No `resellers`: the seed keeps the demo resellers and their keys.
  return { products };
}

export function writeJson(file, value) {
  writeFileSync(file, JSON.stringify(value));
}
