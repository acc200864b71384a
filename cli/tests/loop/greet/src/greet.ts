// A greeting with a type error the scripted agent fixes on its second session.
export function greet(name: string, times: number): string {
  return `${name}! `.repeat(times);
}

export const twice: string = greet("hello", "2");
