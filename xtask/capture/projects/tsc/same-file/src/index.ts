export function greet(name: string): string {
  return `hello ${name}`;
}

greet(42);
greet();
const n: number = greet("x");
