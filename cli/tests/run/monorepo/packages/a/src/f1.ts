// Ten type errors: with the other files, more than GitHub annotates in one step.
export const value1_0: number = "1.0";
export const value1_1: number = "1.1";
export const value1_2: number = "1.2";
export const value1_3: number = "1.3";
export const value1_4: number = "1.4";
export const value1_5: number = "1.5";
export const value1_6: number = "1.6";
export const value1_7: number = "1.7";
export const value1_8: number = "1.8";
export const value1_9: number = "1.9";
